import UbiqModel
import UbiqWire

/// Compaction (issue 23; the iCloud guide's baselines): once a store has `compactAfter`
/// transactions beyond its newest baseline, each device acknowledges what it imported
/// (`imported.ubiqack` in its folder), and the device with the smallest ID among those
/// taking part (those with a folder in the store, less any removed from the account)
/// compacts it as soon as every one of them
/// has imported all it has: its records become a baseline and the logs up to it go. A device
/// behind a baseline (one joining later, or whose local store was lost) starts from it and
/// imports only the logs after it.
extension RecordStore {
    /// After a save or an import: acknowledges and compacts where due. Returns the paths
    /// written or removed, for the caller to announce to peers.
    public func maintain() -> [RelativePath] {
        guard !isDeleted else { return [] }
        do {
            let imported = try database.imported()
            guard imported.total >= baselinePoint.total + UInt64(compactAfter) else { return [] }
            var changed: [RelativePath] = []
            if imported != acknowledged {
                let path = try RecordLogLayout.acknowledgementPath(store: name, device: device)
                try files.replaceFile(RecordBaselineCoding.encodeAcknowledgement(store: name, device: device, imported: imported), at: path)
                acknowledged = imported
                changed.append(path)
            }
            return changed + (try compactIfDue(imported: imported))
        } catch {
            logger.warning("cannot acknowledge or compact a record store", metadata: ["store": "\(name)", "error": "\(error)"])
            return []
        }
    }

    /// Starts the store again from the baseline at `path` where this device has not imported
    /// all it holds; otherwise only notes its point. A baseline that is damaged or not what
    /// its path names is refused like a log.
    @discardableResult
    public func adoptBaseline(at path: RelativePath) throws -> RecordImportSummary {
        guard !isDeleted, let named = RecordLogLayout.baseline(at: path), named.store == name else { return RecordImportSummary() }
        refused[path] = nil
        let baseline: RecordBaseline
        do {
            baseline = try RecordBaselineCoding.decode(try files.readLog(at: path, limit: RecordBaselineCoding.maxBaselineBytes))
            guard baseline.store == name, baseline.author == named.device, baseline.total == named.total else {
                throw RecordError(.invalidLog, "the baseline of \(baseline.author) at \(baseline.point) is not what its path names")
            }
        } catch {
            refuse(path, because: "\(error)")
            return RecordImportSummary()
        }
        guard !baselinePoint.includes(baseline.point) else { return RecordImportSummary() }
        baselinePoint = baselinePoint.merged(with: baseline.point)
        let imported = try database.imported()
        guard !imported.includes(baseline.point) else { return RecordImportSummary() }
        let before = Dictionary(uniqueKeysWithValues: try database.allRecords().map { ($0.key, $0.values) })
        try database.adopt(baseline)
        waiting = [:]
        let after = Dictionary(uniqueKeysWithValues: try database.allRecords().map { ($0.key, $0.values) })
        var summary = RecordImportSummary()
        summary.inserted = after.keys.filter { before[$0] == nil }.sorted()
        summary.updated = after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.sorted()
        summary.deleted = before.keys.filter { after[$0] == nil }.sorted()
        logger.info("record store started from a baseline", metadata: ["store": "\(name)", "path": "\(path)", "point": "\(baseline.point)"])
        if !summary.isEmpty { imports.yield(summary) }
        summary.merge(try importNewLogs())
        return summary
    }

    /// The store's baseline holding the most transactions, if there is one.
    func newestBaseline() throws -> RelativePath? {
        let folder = try RecordLogLayout.folder(of: name)
        var newest: (path: RelativePath, total: UInt64)?
        for device in try files.names(in: folder) where DeviceID.isWellFormed(device) {
            for file in try files.names(in: try folder.appending(device)) {
                guard let path = try? folder.appending(device).appending(file), let baseline = RecordLogLayout.baseline(at: path) else { continue }
                if baseline.total > newest?.total ?? 0 { newest = (path, baseline.total) }
            }
        }
        return newest?.path
    }

    /// Writes this device's records as the baseline and removes the logs and older baselines
    /// it replaces, where this device is the one to and every device taking part has
    /// imported all it has.
    private func compactIfDue(imported: VersionVector) throws -> [RelativePath] {
        let folder = try RecordLogLayout.folder(of: name)
        let folders = try files.names(in: folder).filter { DeviceID.isWellFormed($0) }.map(DeviceID.init)
        let taking = folders.filter { !isRemoved($0) }
        guard (taking + [device]).min() == device else { return [] }
        for other in taking where other != device {
            guard try knownImported(of: other, in: folder).includes(imported) else { return [] }
        }
        let baseline = try database.baseline(of: name, author: device)
        guard baseline.point == imported, !baseline.records.isEmpty else { return [] }
        let path = try RecordLogLayout.baselinePath(store: name, device: device, total: baseline.total)
        try files.replaceFile(RecordBaselineCoding.encode(baseline), at: path)
        baselinePoint = baseline.point
        var changed = [path]
        for other in folders {
            for file in try files.names(in: try folder.appending(other.rawValue)) {
                let old = try folder.appending(other.rawValue).appending(file)
                let replaced = RecordLogLayout.log(at: old).map { $0.counter <= baseline.point[$0.device] }
                    ?? (RecordLogLayout.baseline(at: old) != nil && old != path)
                guard replaced else { continue }
                try files.removeFile(at: old)
                changed.append(old)
            }
        }
        logger.info("compacted a record store", metadata: ["store": "\(name)", "baseline": "\(path)", "removed": "\(changed.count - 1)"])
        return changed
    }

    /// What `other` has imported as far as this device can tell: its acknowledgement, and
    /// the version its latest log was saved at.
    private func knownImported(of other: DeviceID, in folder: RelativePath) throws -> VersionVector {
        var known = VersionVector.empty
        let own = try folder.appending(other.rawValue)
        let names = try files.names(in: own)
        if names.contains(RecordLogLayout.acknowledgementName),
           let acknowledgement = try? RecordBaselineCoding.decodeAcknowledgement(
               try files.readLog(at: try own.appending(RecordLogLayout.acknowledgementName), limit: RecordBaselineCoding.maxAcknowledgementBytes)),
           acknowledgement.store == name, acknowledgement.device == other {
            known = acknowledgement.imported
        }
        if let latest = names.last(where: { $0.hasSuffix(RecordLogLayout.suffix) }),
           let transaction = try? RecordLogCoding.decode(try files.readLog(at: try own.appending(latest), limit: RecordLogCoding.maxFileBytes)),
           transaction.author == other {
            known = known.merged(with: transaction.version)
        }
        return known
    }
}
