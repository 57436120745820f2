#!/usr/bin/env bash
# Regenerates Sources/UbiqWire/Generated/ubiq.pb.swift from Protos/ubiq.proto.
# Needs protoc (Debian: protobuf-compiler) and protoc-gen-swift, which this script builds
# from the swift-protobuf checkout SwiftPM already fetched when it is not on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v protoc >/dev/null || { echo "protoc missing: apt-get install -y protobuf-compiler" >&2; exit 1; }
plugin=$(command -v protoc-gen-swift || true)
if [ -z "$plugin" ]; then
  swift package resolve >/dev/null
  (cd .build/checkouts/swift-protobuf && swift build -c release --product protoc-gen-swift >&2)
  plugin=$(pwd)/.build/checkouts/swift-protobuf/.build/release/protoc-gen-swift
fi
mkdir -p Sources/UbiqWire/Generated
protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Public \
  --swift_out=Sources/UbiqWire/Generated -I Protos Protos/ubiq.proto
echo "wrote Sources/UbiqWire/Generated/ubiq.pb.swift"
