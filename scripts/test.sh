#!/usr/bin/env bash
# Runs every test: unit tests of each module and live tests with real ubiqd processes on
# loopback (in parallel), then the LAN tests in network namespaces (one at a time: each
# brings up its own hosts with dbus and avahi-daemon, and they skip with a message where
# root or namespaces are missing), the randomized partition test among them. Between the
# two, a short fuzzing run of every parser of untrusted bytes. Last, the benchmark at CI
# sizes (docs/benchmarks.md): it fails only on a run that does not converge or on bytes
# received above DESIGN.md's bounds.
set -euo pipefail
cd "$(dirname "$0")/.."
lan='UbiqTestSupportTests\.|LANTests'
swift build --build-tests
swift test --skip-build --skip "$lan" "$@"
# libFuzzer with AddressSanitizer, 30 s per parser of untrusted bytes (docs/reliability.md),
# from a fixed seed: a run tests what the change did, not the luck of the draw; new inputs
# are explored by longer runs without one.
scripts/fuzz.sh --seed 20261123
swift test --skip-build --no-parallel --filter "$lan" "$@"
python3 bench/run.py --ci --bin "$(swift build --show-bin-path)"
