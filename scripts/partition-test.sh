#!/usr/bin/env bash
# Long runs of the randomized partition test (PartitionLANTests, docs/reliability.md):
# one schedule per seed on a namespace LAN, one after another. Needs root.
#   scripts/partition-test.sh [--hosts N] [--steps N] [--seeds "1 2 3" | --count N]
# Prints one line per seed; a failing seed's whole output (its schedule, what each step
# did, where the hosts differ, the agents' log lines about those paths) is kept in
# $OUT (default /tmp/ubiq-partition) as seed-N.log. Exits non-zero if any seed failed.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=5 steps=400 seeds="" count=5
while [ $# -gt 0 ]; do
    case "$1" in
        --hosts) hosts="$2"; shift 2 ;;
        --steps) steps="$2"; shift 2 ;;
        --seeds) seeds="$2"; shift 2 ;;
        --count) count="$2"; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
[ -n "$seeds" ] || seeds=$(for _ in $(seq "$count"); do echo $((RANDOM * 32768 + RANDOM)); done)
out="${OUT:-/tmp/ubiq-partition}"
mkdir -p "$out"
swift build --build-tests >/dev/null
failed=0
for seed in $seeds; do
    log="$out/seed-$seed.log"
    start=$(date +%s)
    if UBIQ_PARTITION_SEED="$seed" UBIQ_PARTITION_HOSTS="$hosts" UBIQ_PARTITION_STEPS="$steps" \
        swift test --skip-build --filter PartitionLANTests >"$log" 2>&1; then
        echo "seed $seed: passed in $(( $(date +%s) - start )) s: $(grep -o 'partition test: .*' "$log" | head -1)"
        rm -f "$log"
    else
        failed=1
        echo "seed $seed: FAILED in $(( $(date +%s) - start )) s; output in $log"
    fi
done
exit $failed
