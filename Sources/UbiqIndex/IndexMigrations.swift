import Foundation
import GRDB
import UbiqModel

/// The index schema, as named append-only migrations (never edit a shipped one; add a new one).
enum IndexMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: containers, items, chunks, needs, peers") { db in
            try db.execute(sql: """
                CREATE TABLE container (
                    id INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE,
                    indexID INTEGER NOT NULL,
                    sequence INTEGER NOT NULL DEFAULT 0
                ) STRICT;
                CREATE TABLE item (
                    container INTEGER NOT NULL REFERENCES container(id),
                    path TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    deleted INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    mtime INTEGER NOT NULL,
                    executable INTEGER NOT NULL,
                    symlinkTarget TEXT,
                    version BLOB NOT NULL,
                    modifiedBy TEXT NOT NULL,
                    chunks BLOB NOT NULL,
                    conflicts BLOB,
                    sequence INTEGER NOT NULL,
                    statSize INTEGER,
                    statMtime INTEGER,
                    statCtime INTEGER,
                    statInode INTEGER,
                    PRIMARY KEY (container, path)
                ) STRICT;
                CREATE INDEX item_by_sequence ON item(container, sequence);
                CREATE TABLE chunk (
                    hash BLOB NOT NULL,
                    container INTEGER NOT NULL,
                    file TEXT NOT NULL,
                    offset INTEGER NOT NULL,
                    size INTEGER NOT NULL
                ) STRICT;
                CREATE INDEX chunk_by_hash ON chunk(hash);
                CREATE INDEX chunk_by_file ON chunk(container, file);
                CREATE TABLE need (
                    container INTEGER NOT NULL,
                    path TEXT NOT NULL,
                    target BLOB NOT NULL,
                    PRIMARY KEY (container, path)
                ) STRICT;
                CREATE TABLE peer (
                    device TEXT NOT NULL,
                    container INTEGER NOT NULL,
                    indexID INTEGER NOT NULL,
                    maxSequence INTEGER NOT NULL,
                    PRIMARY KEY (device, container)
                ) STRICT;
                """)
        }
        migrator.registerMigration("v2: case-folded paths") { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN folded TEXT")
            for row in try Row.fetchAll(db, sql: "SELECT rowid, path FROM item") {
                let path: String = row[1]
                try db.execute(sql: "UPDATE item SET folded = ? WHERE rowid = ?", arguments: [path.lowercased(), row[0] as Int64])
            }
            try db.execute(sql: "CREATE INDEX item_by_folded_path ON item(container, folded)")
        }
        migrator.registerMigration("v3: key-value stores") { db in
            try db.execute(sql: """
                CREATE TABLE kvstore (
                    id INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE,
                    indexID INTEGER NOT NULL,
                    sequence INTEGER NOT NULL DEFAULT 0,
                    clockWall INTEGER NOT NULL DEFAULT 0,
                    clockLogical INTEGER NOT NULL DEFAULT 0,
                    account TEXT
                ) STRICT;
                CREATE TABLE kventry (
                    store INTEGER NOT NULL REFERENCES kvstore(id),
                    key TEXT NOT NULL,
                    value BLOB,
                    version BLOB NOT NULL,
                    valueVersion BLOB,
                    hlcWall INTEGER NOT NULL,
                    hlcLogical INTEGER NOT NULL,
                    modifiedBy TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    PRIMARY KEY (store, key)
                ) STRICT;
                CREATE INDEX kventry_by_sequence ON kventry(store, sequence);
                CREATE TABLE kvpeer (
                    device TEXT NOT NULL,
                    store INTEGER NOT NULL,
                    indexID INTEGER NOT NULL,
                    maxSequence INTEGER NOT NULL,
                    PRIMARY KEY (device, store)
                ) STRICT;
                """)
        }
        migrator.registerMigration("v4: content on demand, what peers hold") { db in
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN absent INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE need ADD COLUMN fetch INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE held (
                    container INTEGER NOT NULL,
                    path TEXT NOT NULL,
                    device TEXT NOT NULL,
                    version BLOB NOT NULL,
                    PRIMARY KEY (container, path, device)
                ) STRICT;
                """)
        }
        migrator.registerMigration("v5: need sizes for status") { db in
            try db.execute(sql: """
                ALTER TABLE need ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE need ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
                """)
            for row in try Row.fetchAll(db, sql: "SELECT rowid, target FROM need") {
                let item = try IndexBinary.decodeItem(row[1] as Data)
                try db.execute(sql: "UPDATE need SET size = ?, deleted = ? WHERE rowid = ?",
                               arguments: [Int64(item.size), item.deleted, row[0] as Int64])
            }
        }
        // NULL where nothing was recorded: the executable column says what was known then.
        migrator.registerMigration("v6: permissions") { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN permissions INTEGER")
        }
        // NULL where the version's own change made the content (every item until then).
        migrator.registerMigration("v7: content counter") { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN contentcounter INTEGER")
        }
        // NULL where the item has no extended attributes (every item until then).
        migrator.registerMigration("v8: extended attributes") { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN attributes BLOB")
        }
        migrator.registerMigration("v9: history") { db in
            try db.execute(sql: """
                CREATE TABLE history (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    container INTEGER NOT NULL REFERENCES container(id),
                    path TEXT NOT NULL,
                    name TEXT NOT NULL,
                    item BLOB NOT NULL,
                    keptAt INTEGER NOT NULL,
                    reason INTEGER NOT NULL,
                    byDevice TEXT NOT NULL,
                    size INTEGER NOT NULL
                ) STRICT;
                CREATE INDEX history_by_path ON history(container, path, keptAt);
                ALTER TABLE container ADD COLUMN historySince INTEGER;
                """)
        }
        // Pauses survive restarts: a container's in its row, the whole agent's as a setting.
        migrator.registerMigration("v10: pause") { db in
            try db.execute(sql: """
                ALTER TABLE container ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE setting (name TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
                """)
        }
        // The account's devices and removed devices, as replicated between agents (JSON of
        // the model's `DeviceRecord` and `Revocation`).
        migrator.registerMigration("v11: account devices") { db in
            try db.execute(sql: """
                CREATE TABLE account_device (id TEXT PRIMARY KEY, record BLOB NOT NULL) STRICT;
                CREATE TABLE revocation (device TEXT PRIMARY KEY, revocation BLOB NOT NULL) STRICT;
                """)
        }
        // A file package's inside (IndexBinary members), NULL for other items.
        migrator.registerMigration("v12: package members") { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN members BLOB")
        }
        // What this device remembers of each container's folder (`RememberedFolder`): its
        // marker's folder ID and its root's device and inode numbers.
        migrator.registerMigration("v13: folder markers") { db in
            try db.execute(sql: """
                ALTER TABLE container ADD COLUMN folderID TEXT;
                ALTER TABLE container ADD COLUMN folderDevice INTEGER;
                ALTER TABLE container ADD COLUMN folderInode INTEGER;
                """)
        }
        return migrator
    }
}
