#!/usr/bin/env bash
# Fuzzes everything that parses untrusted bytes (docs/reliability.md, "Fuzzing"): builds
# ubiq-fuzz with libFuzzer, AddressSanitizer and coverage over all of ubiq's code (release,
# in .build-fuzz), then runs each target for a while from the corpus in Fuzz/Corpus. Exits
# non-zero if any target crashed, hung (10 s for one input), ran out of memory (2 GiB, for
# config-file 8 GiB) or leaked, after printing the input that did it.
#
#   scripts/fuzz.sh                          30 s per target, as in CI
#   scripts/fuzz.sh --seconds 600            longer runs
#   scripts/fuzz.sh peer-frames --seconds 60 only some targets
#   scripts/fuzz.sh --build-only
#   scripts/fuzz.sh --seed 1                 the same inputs in the same order each run (CI;
#                                            the default, 0, lets libFuzzer pick a seed)
#
# --out DIR (default .build-fuzz/out) holds what the runs leave: DIR/TARGET/ has the log and
# any crash-*, timeout-*, oom-* or leak-* input; DIR/corpus/TARGET/ the inputs found, which
# later runs start from too. Replay an input without libFuzzer:
#   swift build --product ubiq-fuzz && .build/debug/ubiq-fuzz TARGET FILE
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
seed=0
out=.build-fuzz/out
build_only=0
targets=()
while (($#)); do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --build-only) build_only=1; shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
((${#targets[@]})) || targets=(peer-frames control-lines config-file account-bundle discovery-txt record-logs)

# -sanitize=fuzzer instruments every Swift module for coverage; -Xcc does the same for the C
# and C++ of dependencies (toml++, BoringSSL). UBIQ_FUZZING makes ubiq-fuzz hand its main to
# libFuzzer. gold fails to link the result; lld does not.
flags=(-c release --build-path .build-fuzz
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DUBIQ_FUZZING
    -Xcc -fsanitize=fuzzer-no-link,address
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
started=$SECONDS
swift build "${flags[@]}" --product ubiq-fuzz > >(grep -v "Cannot export local symbol") 2>&1
bin="$(swift build "${flags[@]}" --show-bin-path)/ubiq-fuzz"
[[ -x $bin ]] || { echo "fuzz.sh: the build did not produce $bin" >&2; exit 1; }
echo "fuzz.sh: built $bin in $((SECONDS - started)) s"
((build_only)) && exit 0

# Input size limits: a few times the largest seed of each kind.
declare -A max_len=([peer-frames]=65536 [control-lines]=65536 [config-file]=16384 [account-bundle]=8192 [discovery-txt]=2048 [record-logs]=65536)
# TOMLKit (0.6) never frees what toml++ allocates (TOMLTable has no deinit; the error buffer
# of TOMLTable(string:) and the key array of TOMLTable.keys are not freed either). ubiqd
# reads its config once per start, so that is bounded; but a leak on every input would stop
# the run (and the check at exit too), and checking each input makes it 20 times slower.
declare -A leaks=([config-file]=0)
# What TOMLKit leaks adds up to about 1 GiB per two million inputs.
declare -A rss=([config-file]=8192)
# With a seed, Swift's per-process random hashing would still reorder dictionaries, and so
# change the coverage the fuzzer sees; deterministic hashing makes the run repeat.
repeatable=()
((seed == 0)) || repeatable=(SWIFT_DETERMINISTIC_HASHING=1)
failed=()
for target in "${targets[@]}"; do
    [[ -n ${max_len[$target]:-} ]] || { echo "fuzz.sh: unknown target $target" >&2; exit 2; }
    mkdir -p "$out/$target" "$out/corpus/$target"
    log="$out/$target/fuzz.log"
    echo "fuzz.sh: $target for $seconds s (log: $log)"
    status=0
    # Swift's own crash handler would race libFuzzer's; ASan reports instead.
    env "${repeatable[@]}" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=${leaks[$target]:-1}" \
        "$bin" "$target" -max_len="${max_len[$target]}" -detect_leaks="${leaks[$target]:-1}" -timeout=10 -rss_limit_mb="${rss[$target]:-2048}" -malloc_limit_mb=512 \
        -max_total_time="$seconds" -seed="$seed" -print_final_stats=1 -artifact_prefix="$out/$target/" \
        "$out/corpus/$target" "Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^INFO: Loaded .* modules' "$log" | sed 's/^/    /' || true
    if ((status != 0)); then
        failed+=("$target")
        grep -E 'ERROR: |SUMMARY: |Fatal error|Test unit written to' "$log" | sed 's/^/    /' || true
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        echo "fuzz.sh: $target FAILED (exit $status); reproducer: ${artifact:-none, see $log}"
        [[ -n $artifact ]] && echo "    replay: $bin $target $artifact"
    fi
done

if ((${#failed[@]})); then
    echo "fuzz.sh: failures in ${failed[*]}"
    exit 1
fi
echo "fuzz.sh: ${targets[*]}: no crash, hang or leak in $seconds s each"
