#!/usr/bin/env bash
# Runs the engine's deterministic simulator over many seeds (release build, deterministic
# hashing so a seed replays exactly), shrinking each failing schedule. Arguments go to
# ubiq-sim, e.g.: scripts/simulate.sh --from 1000 --count 100000 --minutes 60 --shrink
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ubiq-sim
export SWIFT_DETERMINISTIC_HASHING=1
exec "$(swift build -c release --show-bin-path)/ubiq-sim" "$@"
