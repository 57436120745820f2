#!/usr/bin/env bash
# Installs the Debian packages ubiq builds and tests with, where they are missing.
# The namespace LAN of the tests (Sources/UbiqTestSupport/LAN) needs iproute2, util-linux
# (unshare, nsenter), mount, dbus, avahi-daemon, and avahi-utils and iputils-ping for its tests;
# the benchmark at CI sizes needs python3 (and openssl for its limits rows); the history's
# disk-cost test makes xfs and btrfs images (xfsprogs, btrfs-progs); the web page's tests drive
# headless Chromium through its WebDriver (chromium, chromium-driver).
set -euo pipefail
packages=(libsqlite3-dev libavahi-compat-libdnssd-dev protobuf-compiler socat util-linux
          iproute2 mount dbus avahi-daemon avahi-utils iputils-ping python3 openssl xfsprogs btrfs-progs
          chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  # Packages must not start avahi-daemon or dbus-daemon in the machine's own network
  # namespace: tests start their own inside namespaces. policy-rc.d tells the maintainer
  # scripts not to start services while we install.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
