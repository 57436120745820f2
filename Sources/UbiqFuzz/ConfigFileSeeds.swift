/// Config files that load: the defaults written out, every key set, and a few TOML forms.
enum ConfigFileSeeds {
    static func all() -> [(name: String, bytes: [UInt8])] {
        [
            ("empty.toml", ""),
            ("every-key.toml", """
                [agent]
                state = "~/.local/state/ubiq"
                device_name = "my-laptop"
                listen = ["0.0.0.0:22100", "[::]:22100"]
                socket = "/run/user/1000/ubiq/agent.sock"
                discovery = false
                peers = ["192.168.1.20:22100", "[fe80::1%eth0]:22100", "desktop.lan:22100"]
                log_level = "debug"

                [sync]
                package_extensions = ["pages", "numbers", "key", "rtfd", "bundle"]
                close_delay_ms = 2
                modify_delay_ms = 200
                max_delay_ms = 1000

                [[container]]
                id = "ubiq.drive"
                path = "~/Ubiquity/ubiq.drive"
                download = "all"

                [[container]]
                id = "TEAMID.com.example.notes"
                path = "/srv/notes"
                download = "on-demand"

                [[kvstore]]
                id = "TEAMID.com.example.game"

                [kvstore_limits]
                max_store_bytes = 1000000
                max_keys = 1024
                max_key_bytes = 64
                max_value_bytes = 1000000

                [[peer_limit]]
                device = "V7IHCT5E-YZXXVLZN-T7XUXXO4-MSCKTWLM"
                max_send_kib_per_second = 1024

                """),
            ("inline-tables.toml", """
                agent = { listen = ["127.0.0.1:0"], discovery = true }
                sync = { package_extensions = [
                    "pages",  # multi-line array with comments
                    'numbers',
                ] }
                container = [{ id = "a.b" }, { id = "c.d", path = "~/C" }]
                kvstore = [{ id = "TEAMID.com.example.game" }]

                """),
            ("strings.toml", #"""
                [agent]
                device_name = """
                multi-line \
                  name"""
                state = '/var/lib/ubiq'
                socket = "/tmp/u\u00e9.sock"

                """#),
        ].map { (name: $0.0, bytes: Array($0.1.utf8)) }
    }
}
