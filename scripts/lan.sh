#!/usr/bin/env bash
# A namespace LAN by hand, laid out like NamespaceLAN (Sources/UbiqTestSupport/LAN): hosts
# PREFIX-h1..hN on 198.18.0.0/24 (host i = 198.18.0.i, interface eI, mDNS name hI.local),
# bridged in PREFIX-br, each with its own dbus-daemon and avahi-daemon in a private /run.
# Nothing runs in the machine's own network namespace. Needs root.
#
#   scripts/lan.sh up N            build N hosts (after removing leftovers of PREFIX)
#   scripts/lan.sh exec I CMD...   run CMD inside host I (its network and mount namespaces)
#   scripts/lan.sh list            hosts, addresses and holder pids
#   scripts/lan.sh down            kill everything in PREFIX's namespaces and delete them
#   scripts/lan.sh down-all        the same for every namespace whose name starts with "ubiqlan"
#
# PREFIX is $UBIQLAN_PREFIX, default "ubiqlan". With UBIQLAN_IPV6=1 each host also has
# fd00:0:0:2::I/64 (unique-local, only inside these namespaces) and avahi speaks IPv6 too.
# A test LAN kept with NamespaceLAN.detach() can be entered with its prefix:
# UBIQLAN_PREFIX=ubiqlan-mdns scripts/lan.sh exec 2 avahi-browse -at
set -euo pipefail
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
prefix="${UBIQLAN_PREFIX:-ubiqlan}"

die() { echo "lan.sh: $*" >&2; exit 1; }

# Same as HostDaemons.script in Sources/UbiqTestSupport/LAN/HostDaemons.swift: keep them alike.
holder_script='
set -e
umount -l /run/netns 2>/dev/null || true
mount -t tmpfs -o mode=0755,size=16m ubiqlan /run
mkdir -p /run/dbus /run/avahi-daemon /run/ubiqlan
cat > /run/ubiqlan/avahi-daemon.conf <<CONF
[server]
host-name=$1
use-ipv4=yes
use-ipv6=$3
allow-interfaces=$2
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-aaaa-on-ipv4=no
[reflector]
enable-reflector=no
CONF
dbus-daemon --system --fork --nopidfile
avahi-daemon --no-drop-root --no-chroot --no-rlimits -f /run/ubiqlan/avahi-daemon.conf </dev/null >/run/ubiqlan/avahi.log 2>&1 &
exec sleep infinity </dev/null >/dev/null 2>&1
'

namespaces() { # the namespaces of one prefix, hosts before the bridge
  local p="$1"
  ip netns list | awk '{print $1}' | grep -E "^${p}-h[0-9]+\$" | sort -V || true
  ip netns list | awk '{print $1}' | grep -Fx "${p}-br" || true
}

is_pidns_init() { awk '/^NSpid:/ { exit !(NF > 2 && $NF == 1) }' "/proc/$1/status" 2>/dev/null; }

holder_of() { # the PID-namespace init of host I: it sits in the host's network and mount namespaces
  local ns="$prefix-h$1" pid
  [ -e "/run/netns/$ns" ] || die "no host $ns; see: scripts/lan.sh list"
  for pid in $(ip netns pids "$ns"); do
    if is_pidns_init "$pid"; then echo "$pid"; return; fi
  done
  die "host $ns has no holder process; rebuild with: scripts/lan.sh up N"
}

destroy() { # kill PID-namespace inits first (the kernel reaps their daemons), then the rest
  local ns pids pid round
  for ns in "$@"; do
    for round in $(seq 1 500); do
      pids=$(ip netns pids "$ns")
      [ -z "$pids" ] && break
      local inits=""
      for pid in $pids; do is_pidns_init "$pid" && inits="$inits $pid"; done
      if [ -n "$inits" ]; then kill -9 $inits 2>/dev/null || true
      elif [ $((round % 20)) -eq 0 ]; then kill -9 $pids 2>/dev/null || true
      fi
      sleep 0.01
    done
    [ -z "$(ip netns pids "$ns")" ] || die "$ns still runs: $(ip netns pids "$ns" | tr '\n' ' ')"
    ip netns delete "$ns"
  done
}

up() {
  local n="$1" i ns pid ipv6=no
  [ "${UBIQLAN_IPV6:-0}" = 1 ] && ipv6=yes
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 250 ] || die "up takes a host count from 1 to 250"
  [ "$(id -u)" -eq 0 ] || die "needs root"
  destroy $(namespaces "$prefix")
  local br="$prefix-br"
  ip netns add "$br"
  ip -n "$br" link set lo up
  ip -n "$br" link add br0 type bridge mcast_snooping 0
  ip -n "$br" link set br0 up
  for i in $(seq 1 "$n"); do
    ns="$prefix-h$i"
    ip netns add "$ns"
    [ "$ipv6" = yes ] && ip netns exec "$ns" sh -c 'echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad'
    ip -n "$ns" link set lo up
    ip -n "$br" link add "v$i" type veth peer name "e$i" netns "$ns"
    ip -n "$br" link set "v$i" master br0 up
    ip -n "$ns" addr add "198.18.0.$i/24" dev "e$i"
    [ "$ipv6" = yes ] && ip -n "$ns" addr add "fd00:0:0:2::$(printf %x "$i")/64" dev "e$i" nodad
    ip -n "$ns" link set "e$i" multicast on up
    setsid ip netns exec "$ns" unshare --mount --propagation private --pid --fork \
      sh -c "$holder_script" ubiqlan-host "h$i" "e$i" "$ipv6" </dev/null >/dev/null 2>&1 &
  done
  for i in $(seq 1 "$n"); do
    for _ in $(seq 1 2000); do
      pid=$(holder_of "$i" 2>/dev/null || true)
      [ -n "$pid" ] && grep -q "Server startup complete" "/proc/$pid/root/run/ubiqlan/avahi.log" 2>/dev/null && break
      sleep 0.01
    done
    [ -n "$pid" ] && grep -q "Server startup complete" "/proc/$pid/root/run/ubiqlan/avahi.log" 2>/dev/null \
      || die "avahi-daemon of $prefix-h$i did not start; scripts/lan.sh down, then look at scripts/lan.sh exec $i cat /run/ubiqlan/avahi.log"
  done
  list
}

list() {
  local ns i pid
  for ns in $(namespaces "$prefix"); do
    case "$ns" in
      *-br) echo "$ns  bridge br0" ;;
      *) i="${ns##*-h}"; pid=$(holder_of "$i" 2>/dev/null || echo "?")
         echo "$ns  e$i 198.18.0.$i  h$i.local  holder $pid" ;;
    esac
  done
}

case "${1:-}" in
  up) shift; up "${1:-}" ;;
  exec) shift; [ $# -ge 2 ] || die "exec takes a host number and a command"
        i="$1"; shift; pid=$(holder_of "$i") || exit 1
        exec nsenter --target "$pid" --mount --net --wd="$PWD" -- "$@" ;;
  list) list ;;
  down) destroy $(namespaces "$prefix") ;;
  down-all) destroy $(ip netns list | awk '{print $1}' | grep '^ubiqlan' | sort -t- -k1,1 | awk '/-br$/ {b = b " " $0; next} {print} END {print b}') ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
