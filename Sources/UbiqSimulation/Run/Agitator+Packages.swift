import UbiqModel
import UbiqSync
import UbiqTestSupport

/// What applications do to file packages: create them, edit and add or remove the files
/// inside (atomically, in place, or under a write lease on the package as a coordinated
/// writer does), delete and rename them, and read them under a read lease. The write log
/// sees a package as one document (``Documents``).
extension Agitator {
    static let packageNames = ["Report.pkg", "Sketch.pkg"]
    /// What a package may hold: files (those in `Data/` need the folder) and one link.
    static let innerFiles = ["Index.xml", "Data/one.bin", "Data/two.bin", "preview.png"]
    static let innerLink = (name: "current", target: "Index.xml")

    mutating func packageStep(on device: SimDevice, _ label: String) {
        switch draw(16) {
        case 0..<3: createPackage(on: device, label)
        case 3..<7: editInside(on: device, label, atomically: true)
        case 7..<9: editInside(on: device, label, atomically: false)
        case 9..<11: addOrRemoveInside(on: device, label)
        case 11..<13: leasedPackageEdit(on: device, label)
        case 13: deletePackage(on: device, label)
        case 14: renamePackage(on: device, label)
        default: leasedPackageRead(on: device, label)
        }
    }

    /// The device's packages with what is inside them, in path order.
    private func packages(of device: SimDevice) -> [(path: RelativePath, inside: [RelativePath: SimulatedDisk.Entry])] {
        device.disk.packageTrees().sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    private func inner(_ package: RelativePath, _ name: String) -> RelativePath {
        // Valid: a package's path and the fixed inner names are.
        try! package.appending(name)
    }

    /// Does a client's operations in one go (the engine runs only between steps, so it
    /// never sees half of them), logs what they changed and tells the engine.
    private mutating func perform(_ operations: [ClientOperation], on device: SimDevice, _ label: String, _ what: String,
                                  touching paths: Set<RelativePath?>) {
        let before = documents(of: device)
        var refusal = ""
        do { try ClientOperation.apply(operations, to: device.disk) } catch { refusal = " refused: \(error)" }
        // What was done before a refusal stays done, and is logged.
        log.changed(from: before, to: documents(of: device), device: device.number, step: counter, label: label)
        steps.append("\(label) \(what)\(refusal)")
        changed(device, paths)
    }

    /// A write of a new version of `path`'s bytes, in any of the ways applications write.
    private mutating func write(_ path: RelativePath) -> ClientOperation {
        .write(path, content(), atomically: draw(2) == 0, fsync: draw(2) == 0)
    }

    private mutating func createPackage(on device: SimDevice, _ label: String) {
        guard let folder = pick(Self.folders), let name = pick(Self.packageNames), let path = try? RelativePath("\(folder)/\(name)") else { return }
        let existing = device.disk.snapshot()
        guard existing[path] == nil else {
            // Something that is no package (under other rules) would send the two back and forth.
            if device.disk.packageTrees()[path] != nil { editInside(on: device, label, atomically: true) }
            return
        }
        var missing: [RelativePath] = []
        var parent = path.parent
        while let folder = parent, folder.rawValue != "Documents" {
            if existing[folder] == nil { missing.insert(folder, at: 0) }
            parent = folder.parent
        }
        var operations = missing.map { ClientOperation.makeFolder($0) } + [.makeFolder(path)]
        var made = false
        for name in Self.innerFiles where name == "Index.xml" || draw(2) == 0 {
            if name.hasPrefix("Data/"), !made {
                operations.append(.makeFolder(inner(path, "Data")))
                made = true
            }
            operations.append(write(inner(path, name)))
        }
        if draw(3) == 0 { operations.append(.makeLink(inner(path, Self.innerLink.name), target: Self.innerLink.target)) }
        perform(operations, on: device, label, "create package \(path)", touching: [missing.first ?? path])
    }

    private mutating func editInside(on device: SimDevice, _ label: String, atomically: Bool) {
        guard let (package, inside) = pick(packages(of: device)) else { return createPackage(on: device, label) }
        let files = inside.filter { $0.value.isFile }.keys.sorted()
        guard let file = pick(files) else { return addOrRemoveInside(on: device, label) }
        let path = try! package.appending(file.rawValue)
        let operation = ClientOperation.write(path, content(), atomically: atomically, fsync: draw(2) == 0)
        perform([operation], on: device, label, "edit \(path) \(atomically ? "atomically" : "in place")", touching: [package])
    }

    private mutating func addOrRemoveInside(on device: SimDevice, _ label: String) {
        guard let (package, inside) = pick(packages(of: device)) else { return createPackage(on: device, label) }
        let present = inside.keys.sorted()
        let held = Set(present.map(\.rawValue))
        if draw(2) == 0, let name = pick((Self.innerFiles + [Self.innerLink.name]).filter { !held.contains($0) }) {
            var operations: [ClientOperation] = []
            if name == Self.innerLink.name {
                operations.append(.makeLink(inner(package, name), target: Self.innerLink.target))
            } else {
                if name.hasPrefix("Data/"), !held.contains("Data") { operations.append(.makeFolder(inner(package, "Data"))) }
                operations.append(write(inner(package, name)))
            }
            perform(operations, on: device, label, "add \(inner(package, name))", touching: [package])
        } else if let gone = pick(present) {
            perform([.remove(inner(package, gone.rawValue))], on: device, label, "remove \(package)/\(gone)", touching: [package])
        }
    }

    private mutating func deletePackage(on device: SimDevice, _ label: String) {
        guard let (package, _) = pick(packages(of: device)) else { return }
        perform([.remove(package)], on: device, label, "delete package \(package)", touching: [package])
    }

    /// A package moved or renamed, now and then to a name that is no package's (its inside
    /// becomes files of their own), or a folder renamed into a package.
    private mutating func renamePackage(on device: SimDevice, _ label: String) {
        let folders = Self.folders.compactMap { try? RelativePath($0) }.filter { device.disk.snapshot()[$0]?.isFolder == true }
        guard let folder = pick(folders), let name = pick(Self.packageNames + ["Report.old"]) else { return }
        let target = inner(folder, name)
        let source: RelativePath?
        if draw(4) == 0 {
            source = pick(Self.folders.filter { $0 != "Documents" }).flatMap { try? RelativePath($0) }
        } else {
            source = pick(packages(of: device))?.path
        }
        guard let source, source != target, !target.isInside(source), device.disk.snapshot()[source]?.isFolder == true,
              device.disk.snapshot()[target] == nil else { return }
        perform([.rename(source, to: target)], on: device, label, "rename \(source) → \(target)", touching: [source, target])
    }

    /// A coordinated writer: takes a write lease on a package, saves one or two files inside
    /// (and maybe adds one) while holding it, and lets go a moment later.
    private mutating func leasedPackageEdit(on device: SimDevice, _ label: String) {
        guard let life = device.life, let (package, inside) = pick(packages(of: device)) else { return }
        let files = inside.filter { $0.value.isFile }.keys.sorted()
        var operations: [ClientOperation] = []
        for _ in 0..<(1 + draw(2)) {
            if let file = pick(files) { operations.append(.write(try! package.appending(file.rawValue), content(), atomically: true, fsync: true)) }
        }
        if draw(3) == 0, let name = pick(["preview.png", "Index.xml"]) {
            operations.append(.write(inner(package, name), content(), atomically: true, fsync: true))
        }
        let hold = Duration.milliseconds(draw(2000))
        let connection = UInt64(counter)
        let claim = FileLeases.Claim(container: device.container, path: package, access: .write)
        steps.append("\(label) leased package edit \(package) (\(operations.map(\.description).joined(separator: ", "))) for \(hold)")
        let box = leasedWrites
        Task(executorPreference: life.executor) { [clock = SimClock(scheduler: world.scheduler, wallOffset: { 0 })] in
            guard let lease = await life.leases.acquire([claim], for: .client(connection: connection), timeout: .seconds(1)) else { return }
            if let before = device.disk.packageTrees()[package] {
                // All at once: nothing runs on this device between them.
                for operation in operations { try? operation.apply(to: device.disk) }
                if let after = device.disk.packageTrees()[package] {
                    box.add(WrittenVersion(path: package.rawValue, hash: Documents.digest(of: after)),
                            saw: WrittenVersion(path: package.rawValue, hash: Documents.digest(of: before)), label)
                }
            }
            try? await clock.sleep(for: hold)
            await life.leases.release(lease.id)
            await life.sync.localChanges([package])
        }
    }

    /// A coordinated reader: takes a read lease on a package and looks at it now and again
    /// while holding it; no one but a client may change it meanwhile. Another device edits
    /// the package at once, so that its version arrives while the reader holds the lease.
    private mutating func leasedPackageRead(on device: SimDevice, _ label: String) {
        guard let life = device.life, let (package, _) = pick(packages(of: device)) else { return }
        let pauses = (0..<3).map { _ in Duration.milliseconds(draw(700)) }
        let connection = UInt64(counter)
        let claim = FileLeases.Claim(container: device.container, path: package, access: .read)
        steps.append("\(label) leased read \(package)")
        let (reads, touches) = (leasedReads, touches)
        Task(executorPreference: life.executor) { [clock = SimClock(scheduler: world.scheduler, wallOffset: { 0 })] in
            guard let lease = await life.leases.acquire([claim], for: .client(connection: connection), timeout: .seconds(1)) else { return }
            let mark = touches.mark()
            let first = device.disk.packageTrees()[package]
            // A disk away hides the package from its reader too; that is no change under it.
            var away = device.disk.absence != nil
            for pause in pauses {
                try? await clock.sleep(for: pause)
                let now = device.disk.packageTrees()[package]
                away = away || device.disk.absence != nil
                guard now != first, !away, !touches.touched(package, on: device.number, after: mark) else { continue }
                let differ = Set((first ?? [:]).keys).union((now ?? [:]).keys).filter { first?[$0] != now?[$0] }.sorted()
                reads.report("device \(device.number): \(label) held a read lease on \(package) and saw it change under it at "
                             + "\(differ.prefix(6).map(\.rawValue))\(first == nil ? " (it was not there)" : now == nil ? " (it went)" : "")")
                break
            }
            await life.leases.release(lease.id)
        }
        // Done after the reader's task is made, whose first job takes the lease, before the
        // edit can reach this device.
        let editors = world.devices.filter { $0 !== device && $0.isUp && $0.disk.packageTrees()[package] != nil }
        if let editor = pick(editors), let file = pick(editor.disk.packageTrees()[package]!.filter { $0.value.isFile }.keys.sorted()) {
            let path = try! package.appending(file.rawValue)
            perform([.write(path, content(), atomically: true, fsync: true)], on: editor, "\(label) d\(editor.number)",
                    "edit \(path) while d\(device.number) reads it", touching: [package])
        }
    }
}
