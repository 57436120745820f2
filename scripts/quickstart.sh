#!/usr/bin/env bash
# Installs what is missing, builds ubiq in release mode and starts an agent on defaults.
# Its first start creates this device's identity and a new account, and prints the
# identity token, the container folder and the socket path.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release
mkdir -p "$HOME/.local/bin"
install -m 0755 .build/release/ubiqd .build/release/ubiq "$HOME/.local/bin/"
echo "installed ubiqd and ubiq in $HOME/.local/bin"
exec "$HOME/.local/bin/ubiqd" "$@"
