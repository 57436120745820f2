#!/usr/bin/env bash
# Runs every test: unit tests of each module, then live tests with real ubiqd processes.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
swift test --skip-build "$@"
