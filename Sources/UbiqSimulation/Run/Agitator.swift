import UbiqChunking
import UbiqModel
import UbiqSync
import UbiqTestSupport

/// Trinity-style agitation: what users, applications, networks and power cuts do to the
/// devices, one random step at a time, each step also written to the run's log so that the
/// end state can be judged (``ClientLog``); file packages get steps of their own
/// (``packageStep(on:_:)``).
struct Agitator {
    let world: SimWorld
    var log = ClientLog()
    /// One line per step, for the report of a failing seed.
    var steps: [String] = []
    private(set) var counter = 0
    let leasedWrites = LeasedWrites()
    let leasedReads = LeasedReads()
    let touches = ClientTouches()
    let absences = DiskAbsences()
    let decisions = DeletionDecisions()
    /// Paths a crash took back on each device still down: its engine sees the revert only
    /// once it is up again, so until then no other device can have seen it either.
    private var revertsAwaitingRestart: [Int: [RelativePath]] = [:]

    static let folders = ["Documents", "Documents/x", "Documents/y", "Documents/x/z"]
    static let names = ["a.txt", "b.txt", "c", "Notes.md", "report.pdf", "e"]

    /// Steps (numbered from 1) drawn but not done, for shrinking a failing run.
    let skipping: Set<Int>

    init(world: SimWorld, skipping: Set<Int> = []) {
        self.world = world
        self.skipping = skipping
    }

    func draw(_ bound: Int) -> Int { world.scheduler.draw(below: bound) }
    func pick<T>(_ elements: [T]) -> T? { elements.isEmpty ? nil : elements[draw(elements.count)] }

    /// Takes one random step; returns what it did.
    mutating func step() {
        counter += 1
        noteRestarts()
        decideHeldDeletions()
        let up = world.devices.filter(\.isUp)
        let roll = draw(108)
        guard let device = pick(up) else {
            restartAll()
            return
        }
        let label = "#\(counter) d\(device.number)"
        switch skipping.contains(counter) ? 107 : roll {
        case 0..<24: create(on: device, label)
        case 24..<38: edit(on: device, label, atomically: true)
        case 38..<46: edit(on: device, label, atomically: false)
        case 46..<50: append(on: device, label)
        case 50..<58: renameFile(on: device, label)
        case 58..<61: makeFolder(on: device, label)
        case 61..<64: moveFolder(on: device, label)
        case 64..<70: delete(on: device, label, folders: false)
        case 70..<72: delete(on: device, label, folders: true)
        case 72..<76: leasedWrite(on: device, label)
        case 76..<78: crash(device, label)
        case 78..<81: partition(label)
        case 81..<84:
            world.healAll()
            steps.append("\(label) heal")
        case 84..<86:
            world.reset(device.number)
            steps.append("\(label) reset connections")
        case 86..<87:
            let hours = Int64(draw(49)) - 24
            world.jumpWallClock(of: device.number, by: .seconds(hours * 3600))
            steps.append("\(label) wall clock \(hours)h")
        case 87..<88: chmod(on: device, label)
        case 88..<89: touch(on: device, label)
        case 89..<90: tag(on: device, label)
        case 90..<98: packageStep(on: device, label)
        case 98..<100: diskAwayOrBack(device, label)
        case 100..<101: massDelete(on: device, label)
        default:
            steps.append("\(label) wait")
        }
        if let last = steps.last, last.hasPrefix(label + " ") { world.logger.debug("agitation", metadata: ["step": "\(last)"]) }
        world.scheduler.run(for: .milliseconds(draw(300)))
        if let watched = world.watched { watch(watched, label) }
    }

    /// Logs each device's view of one path after a step (`UBIQ_SIM_WATCH`), to follow a bug.
    private func watch(_ path: RelativePath, _ label: String) {
        for device in world.devices {
            let onDisk = device.disk.contents(of: path).map { ChunkHasher.hash($0).hex.prefix(8) } ?? "none"
            let indexed = try? device.index.item(device.container, path)
            let need = try? device.index.need(device.container, path)
            world.logger.debug("watch", metadata: [
                "after": "\(label)", "d": "\(device.number)", "disk": "\(onDisk) \(device.disk.stat(path).map { "\($0)" } ?? "")",
                "index": "\(indexed.map { "\($0.item.deleted ? "deleted " : "")\($0.item.version) \($0.item.attributes.names) \($0.stat.map { "\($0)" } ?? "")" } ?? "none")",
                "onDisk": "\(device.disk.snapshot()[path].map { "\($0)" } ?? "none")",
                "need": "\(need.map { "\($0.version)" } ?? "none")",
                "conflicts": "\(indexed.map { "\($0.item.conflicts.map(\.id))" } ?? "none")",
            ])
        }
    }

    // MARK: clients

    mutating func content() -> [UInt8] {
        let size = [0, 1, 100, 3000, 20_000, 70_000][draw(6)]
        var generator = SplitMix64(seed: UInt64(counter) &* 0x9E37_79B9 &+ UInt64(draw(1 << 30)))
        var bytes = [UInt8](unsafeUninitializedCapacity: size + 12) { buffer, count in
            for offset in 0..<size { buffer[offset] = UInt8(truncatingIfNeeded: generator.next() % 7 + 97) }
            count = size
        }
        // Every version is unique, even an empty one's successor.
        bytes.append(contentsOf: Array("#\(counter)".utf8))
        return bytes
    }

    static func hash(_ bytes: [UInt8]) -> String { ChunkHasher.hash(bytes).hex }

    /// Files outside packages: a package's inside changes by ``packageStep(on:_:)`` only.
    private func files(of device: SimDevice) -> [(RelativePath, [UInt8])] {
        device.disk.snapshot().compactMap { path, entry in
            if case .file(let bytes, _, _, _) = entry, device.disk.packages.package(containing: path) == nil { return (path, bytes) }
            return nil
        }.sorted { $0.0 < $1.0 }
    }

    /// Folders that are neither packages nor inside one.
    private func folders(of device: SimDevice) -> [RelativePath] {
        let packages = device.disk.packages
        return device.disk.snapshot().compactMap { path, entry in
            entry.isFolder && path.rawValue.hasPrefix("Documents/") && !packages.isPackageName(path.name)
                && packages.package(containing: path) == nil ? path : nil
        }.sorted()
    }

    /// Every document of the device (``Documents``), to log what a client changed.
    func documents(of device: SimDevice) -> [RelativePath: String] {
        Documents.of(device.disk.snapshot(), packages: device.disk.packages)
    }

    /// Tells the device's engine what a client changed, as its watcher would, and notes that
    /// a client changed it (``ClientTouches``).
    func changed(_ device: SimDevice, _ paths: Set<RelativePath?>) {
        touches.touched(device.number, Array(paths), step: counter)
        device.changed(paths)
    }

    private func version(_ path: RelativePath, _ bytes: [UInt8]) -> WrittenVersion {
        WrittenVersion(path: path.rawValue, hash: Self.hash(bytes))
    }

    /// Records a client's write at `path` on `device`, replacing what it saw there.
    private mutating func wrote(_ path: RelativePath, _ bytes: [UInt8], on device: SimDevice, saw: [UInt8]?, _ label: String) {
        log.wrote(version(path, bytes), step: counter, label: label, replacing: saw.map { version(path, $0) })
    }

    private mutating func create(on device: SimDevice, _ label: String) {
        guard let folder = pick(Self.folders), let name = pick(Self.names), let path = try? RelativePath("\(folder)/\(name)") else { return }
        let saw = device.disk.contents(of: path)
        let bytes = content()
        var parents: [RelativePath] = []
        var parent = path.parent
        while let folder = parent, folder.rawValue != "Documents" {
            parents.insert(folder, at: 0)
            parent = folder.parent
        }
        let existing = device.disk.snapshot()
        for folder in parents where existing[folder] == nil { try? device.disk.clientMakeFolder(folder) }
        do {
            if draw(2) == 0 { try device.disk.clientSaveAtomically(path, bytes) } else { try device.disk.clientWrite(path, bytes, fsync: draw(2) == 0) }
        } catch {
            steps.append("\(label) create \(path) refused: \(error)")
            return
        }
        wrote(path, bytes, on: device, saw: saw, label)
        steps.append("\(label) create \(path) (\(bytes.count) B)")
        changed(device, [parents.first ?? path])
    }

    private mutating func edit(on device: SimDevice, _ label: String, atomically: Bool) {
        guard let (path, saw) = pick(files(of: device)) else { return create(on: device, label) }
        let bytes = content()
        do {
            if atomically { try device.disk.clientSaveAtomically(path, bytes) } else { try device.disk.clientWrite(path, bytes, fsync: draw(2) == 0) }
        } catch {
            steps.append("\(label) edit \(path) refused: \(error)")
            return
        }
        wrote(path, bytes, on: device, saw: saw, label)
        steps.append("\(label) edit \(path)\(atomically ? " atomically" : " in place")")
        changed(device, [path])
    }

    private mutating func append(on device: SimDevice, _ label: String) {
        guard let (path, saw) = pick(files(of: device)) else { return }
        let more = Array("+\(counter)".utf8)
        do { try device.disk.clientAppend(path, more, fsync: draw(2) == 0) } catch { return }
        wrote(path, saw + more, on: device, saw: saw, label)
        steps.append("\(label) append \(path)")
        changed(device, [path])
    }

    /// A change of permissions alone: metadata that travels without content.
    private mutating func chmod(on device: SimDevice, _ label: String) {
        guard let (path, _) = pick(files(of: device)), let bits = pick([0o600, 0o640, 0o644, 0o700, 0o755] as [UInt32]) else { return }
        do { try device.disk.clientSetPermissions(path, Permissions(mode: bits, kind: .file)) } catch { return }
        steps.append("\(label) chmod \(String(bits, radix: 8)) \(path)")
        changed(device, [path])
    }

    /// A change of mtime alone (`touch -d`), to the nanosecond: a version that moves no
    /// bytes and never makes a conflict version.
    private mutating func touch(on device: SimDevice, _ label: String) {
        guard let (path, _) = pick(files(of: device)) else { return }
        let mtime = SimClock.wallOrigin + (Int64(draw(48)) - 24) * 3_600_000_000_000 + Int64(draw(1_000_000_000))
        do { try device.disk.clientSetMtime(path, mtime) } catch { return }
        steps.append("\(label) touch \(path)")
        changed(device, [path])
    }

    /// `setfattr` on a file or folder: an attribute set, changed or removed, metadata that
    /// travels without content.
    private mutating func tag(on device: SimDevice, _ label: String) {
        let paths = device.disk.snapshot().filter { !$0.value.isSymlink && $0.key.rawValue != "Documents" }.keys.sorted()
        guard let path = pick(paths), let name = pick(["user.tag", "user.origin", "user.checksum"]) else { return }
        let value: [UInt8]? = draw(4) == 0 ? nil : Array("\(name)=\(counter)".utf8)
        do { try device.disk.clientSetAttribute(path, name, value) } catch { return }
        steps.append("\(label) setfattr \(name) \(value == nil ? "removed" : "set") \(path)")
        changed(device, [path])
    }

    private mutating func renameFile(on device: SimDevice, _ label: String) {
        guard let (path, _) = pick(files(of: device)) else { return }
        let caseOnly = draw(3) == 0
        let target: RelativePath?
        if caseOnly {
            let name = path.name
            let flipped = name == name.lowercased() ? name.uppercased() : name.lowercased()
            target = try? RelativePath(path.rawValue.dropLast(name.count) + flipped)
        } else {
            target = pick(Self.folders).flatMap { folder in pick(Self.names).flatMap { try? RelativePath("\(folder)/\($0)") } }
        }
        guard let target, target != path else { return }
        let before = documents(of: device)
        do { try device.disk.clientRename(from: path, to: target) } catch {
            steps.append("\(label) rename \(path) → \(target) refused: \(error)")
            return
        }
        log.changed(from: before, to: documents(of: device), device: device.number, step: counter, label: label)
        steps.append("\(label) rename \(path) → \(target)")
        changed(device, [path, target])
    }

    private mutating func makeFolder(on device: SimDevice, _ label: String) {
        guard let folder = pick(Self.folders), folder != "Documents", let path = try? RelativePath(folder) else { return }
        guard (try? device.disk.clientMakeFolder(path)) != nil else { return }
        steps.append("\(label) mkdir \(path)")
        changed(device, [path])
    }

    private mutating func moveFolder(on device: SimDevice, _ label: String) {
        guard let folder = pick(folders(of: device)),
              let target = pick(Self.folders.filter { $0 != "Documents" }).flatMap({ try? RelativePath($0 + "-moved") }),
              !target.isInside(folder) else { return }
        let before = documents(of: device)
        do { try device.disk.clientRename(from: folder, to: target) } catch {
            steps.append("\(label) move \(folder) → \(target) refused: \(error)")
            return
        }
        log.changed(from: before, to: documents(of: device), device: device.number, step: counter, label: label)
        steps.append("\(label) move folder \(folder) → \(target)")
        changed(device, [folder, target])
    }

    private mutating func delete(on device: SimDevice, _ label: String, folders wantFolders: Bool) {
        let path: RelativePath?
        if wantFolders { path = pick(folders(of: device)) } else { path = pick(files(of: device))?.0 }
        guard let path else { return }
        let before = documents(of: device)
        do { try device.disk.clientRemove(path) } catch { return }
        log.changed(from: before, to: documents(of: device), device: device.number, step: counter, label: label)
        steps.append("\(label) delete \(path)")
        changed(device, [path])
    }

    /// A client takes a write lease on a file, writes it while holding the lease, and lets go
    /// a moment later, as a coordinated writer does.
    private mutating func leasedWrite(on device: SimDevice, _ label: String) {
        guard let life = device.life, let (path, _) = pick(files(of: device)) else { return }
        let bytes = content()
        let hold = Duration.milliseconds(draw(2000))
        let connection = UInt64(counter)
        let claim = FileLeases.Claim(container: device.container, path: path, access: .write)
        steps.append("\(label) leased write \(path) for \(hold)")
        let box = leasedWrites
        Task(executorPreference: life.executor) { [clock = SimClock(scheduler: world.scheduler, wallOffset: { 0 })] in
            guard let lease = await life.leases.acquire([claim], for: .client(connection: connection), timeout: .seconds(1)) else { return }
            let saw = device.disk.contents(of: path).map { WrittenVersion(path: path.rawValue, hash: Self.hash($0)) }
            if (try? device.disk.clientWrite(path, bytes, fsync: true)) != nil {
                box.add(WrittenVersion(path: path.rawValue, hash: Self.hash(bytes)), saw: saw, label)
            }
            try? await clock.sleep(for: hold)
            await life.leases.release(lease.id)
            await life.sync.localChanges([path])
        }
    }

    /// Writes made inside tasks (under a lease), moved into the log between steps.
    mutating func collectLeasedWrites() {
        for write in leasedWrites.drain() {
            log.wrote(write.version, step: counter, label: write.label, replacing: write.saw)
        }
    }

    // MARK: the world

    private mutating func crash(_ device: SimDevice, _ label: String) {
        let before = documents(of: device)
        world.crash(device.number)
        // What the power cut took back is the operating system's loss, not the engine's: the
        // file holds its last durable bytes again (a package, each of its files), a change
        // of this device's as any client's.
        let after = documents(of: device)
        log.changed(from: before, to: after, device: device.number, step: counter, label: "\(label) crash revert", deleting: false)
        let reverted = before.keys.filter { after[$0] != before[$0] }
        touches.touched(device.number, reverted, step: counter)
        revertsAwaitingRestart[device.number, default: []] += reverted
        steps.append("\(label) crash")
        let downFor = Duration.milliseconds(100 + draw(3000))
        world.scheduler.after(downFor) { [world] in world.restart(device.number) }
    }

    /// A device up again after a crash changes what the crash took back, for other devices,
    /// now: a deletion of the reverted content elsewhere meanwhile was concurrent with it.
    mutating func noteRestarts() {
        for (number, paths) in revertsAwaitingRestart where world.devices[number].isUp {
            touches.touched(number, paths, step: counter)
            revertsAwaitingRestart[number] = nil
        }
    }

    private mutating func partition(_ label: String) {
        let a = draw(world.devices.count), b = draw(world.devices.count)
        guard a != b else { return }
        world.partition(a, b)
        steps.append("\(label) partition \(a)|\(b)")
    }

    /// The device's disk goes away for 0.5–10.5 s, or comes back now where it is away
    /// (issue 40). The engine hears of it as its watcher would, or only when it next looks.
    private mutating func diskAwayOrBack(_ device: SimDevice, _ label: String) {
        if device.disk.absence != nil {
            absences.bringBack(device)
            steps.append("\(label) disk back")
            return
        }
        let how = DiskAbsence.allCases[draw(DiskAbsence.allCases.count)]
        device.disk.goAway(how)
        let told = draw(2) == 0
        if told { device.changed([nil]) }
        let awayFor = Duration.milliseconds(500 + draw(10_000))
        steps.append("\(label) disk away (\(how.rawValue)\(told ? ", the engine told" : "")) for \(awayFor)")
        world.scheduler.after(awayFor) { [absences] in absences.bringBack(device) }
    }

    /// Every disk that is away comes back, before the world settles.
    func bringDisksBack() {
        for device in world.devices where device.disk.absence != nil { absences.bringBack(device) }
    }

    func restartAll() {
        for device in world.devices where !device.isUp { world.restart(device.number) }
    }
}
