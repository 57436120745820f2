#!/usr/bin/env bash
# Writes the man pages docs/man/ubiq.1 and docs/man/ubiqd.1 from the commands' own help texts,
# with swift-argument-parser's generate-manual tool (the package's GenerateManual plugin
# builds it the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product ubiq
swift build --product ubiqd
bin="$(swift build --show-bin-path)"
tool="$(find .build -name generate-manual-tool -type f -perm -u+x | head -1)"
if [ -z "$tool" ]; then
  swift package plugin generate-manual --help >/dev/null
  tool="$(find .build -name generate-manual-tool -type f -perm -u+x | head -1)"
fi
mkdir -p docs/man
for program in ubiq ubiqd; do
  "$tool" "$bin/$program" --date "$(git log -1 --format=%cs)" --output-directory docs/man
done
