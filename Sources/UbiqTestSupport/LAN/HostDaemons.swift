/// The script each host's holder runs: a private `/run` with its own system D-Bus and an
/// avahi-daemon on the host's interface only, then `sleep` as PID 1 of the host's PID
/// namespace so killing it stops (and the kernel reaps) every daemon of the host.
enum HostDaemons {
    /// Inside the host's mount namespace.
    static let logPath = "/run/ubiqlan/avahi.log"
    static let configPath = "/run/ubiqlan/avahi-daemon.conf"
    /// The line avahi-daemon logs once it has claimed its host name.
    static let readyLine = "Server startup complete."

    /// `sh -c script ubiqlan-host HOSTNAME INTERFACE USE-IPV6` (`yes` or `no`).
    static let script = """
        set -e
        # Drop the copies of /run/netns bind mounts so this mount namespace pins no other namespace.
        umount -l /run/netns 2>/dev/null || true
        mount -t tmpfs -o mode=0755,size=16m ubiqlan /run
        mkdir -p /run/dbus /run/avahi-daemon /run/ubiqlan
        cat > \(configPath) <<EOF
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
        EOF
        dbus-daemon --system --fork --nopidfile
        avahi-daemon --no-drop-root --no-chroot --no-rlimits -f \(configPath) </dev/null >\(logPath) 2>&1 &
        exec sleep infinity </dev/null >/dev/null 2>&1
        """
}
