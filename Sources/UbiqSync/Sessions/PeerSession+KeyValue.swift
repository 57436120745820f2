import Foundation
import UbiqIndex
import UbiqModel
import UbiqWire

/// The key-value half of a peer conversation: entries out by sequence, entries in merged
/// and acknowledged, acknowledgements in for `kv.synchronize`.
extension PeerSession {
    /// The value bytes one `KeyValueUpdate` carries at most (one larger value goes alone).
    static let keyValueBatchBytes = 4 << 20

    func joinStores(_ agreement: Handshake.Agreement) async {
        for (id, offer) in agreement.stores {
            guard let store = stores[id] else { continue }
            let acknowledged = offer.peerIndexID == store.indexID ? Int64(clamping: offer.peerMaxSequence) : 0
            await store.peerJoined(link.remoteDevice, session: ObjectIdentifier(self), acknowledged: acknowledged)
        }
    }

    func leaveStores() async {
        for store in stores.values {
            await store.peerLeft(link.remoteDevice, session: ObjectIdentifier(self))
        }
    }

    /// What this device holds of each shared store that the peer lacks, read before any of
    /// the peer's entries are merged. Sending these originals first means both sides see
    /// each other's concurrent writes as they were, so both post the `conflict` notice,
    /// rather than one side getting only the other's merge.
    func keyValueSnapshots(_ agreement: Handshake.Agreement) throws -> [KeyValueStoreID: (offer: Ubiq_Wire_StoreOffer, entries: [IndexedKeyValue])] {
        var result: [KeyValueStoreID: (Ubiq_Wire_StoreOffer, [IndexedKeyValue])] = [:]
        for (id, offer) in agreement.stores {
            guard let store = stores[id] else { continue }
            result[id] = (offer, try store.entries(after: acknowledgedSequence(store, offer), limit: .max))
        }
        return result
    }

    private func acknowledgedSequence(_ store: KeyValueStore, _ offer: Ubiq_Wire_StoreOffer) -> Int64 {
        offer.peerIndexID == store.indexID ? Int64(clamping: offer.peerMaxSequence) : 0
    }

    func sendKeyValues(_ store: KeyValueStore, offer: Ubiq_Wire_StoreOffer, snapshot: [IndexedKeyValue]) async throws {
        var sent = try await sendKeyValueBatches(store, snapshot, after: acknowledgedSequence(store, offer))
        for await _ in store.sequenceChanges() {
            while true {
                let next = try await sendKeyValueBatches(store, try store.entries(after: sent, limit: 256), after: sent)
                if next == sent { break }
                sent = next
            }
        }
    }

    /// Sends `entries` in updates of at most ``keyValueBatchBytes`` of values (a larger value
    /// goes alone); returns the last sequence sent.
    private func sendKeyValueBatches(_ store: KeyValueStore, _ entries: [IndexedKeyValue], after: Int64) async throws -> Int64 {
        var sent = after
        var rest = entries[...]
        while !rest.isEmpty {
            var update = Ubiq_Wire_KeyValueUpdate()
            update.storeID = store.id.rawValue
            update.indexID = store.indexID
            var bytes = 0
            while let indexed = rest.first {
                let entry = KeyValueMapping.wireEntry(indexed.entry)
                if !update.entries.isEmpty && bytes + entry.value.count > Self.keyValueBatchBytes { break }
                bytes += entry.value.count + entry.key.utf8.count
                update.entries.append(entry)
                update.lastSequence = UInt64(indexed.sequence)
                rest = rest.dropFirst()
            }
            try await link.send(Ubiq_Wire_Envelope(.keyValueUpdate(update)))
            sent = Int64(update.lastSequence)
        }
        return sent
    }

    func receiveKeyValues(_ update: Ubiq_Wire_KeyValueUpdate) async throws {
        guard let id = try? KeyValueStoreID(update.storeID), let offer = agreement?.stores[id], let store = stores[id] else {
            logger.warning("key-value update for a store not shared", metadata: ["kvstore": "\(update.storeID.prefix(100))"])
            return
        }
        guard update.indexID == offer.indexID else {
            throw WireError(.malformed, "key-value update with index ID \(update.indexID), the hello said \(offer.indexID)")
        }
        var entries: [KeyValueEntry] = []
        entries.reserveCapacity(update.entries.count)
        for wire in update.entries {
            do { entries.append(try KeyValueMapping.entry(wire)) } catch {
                logger.warning("refused key-value entry", metadata: ["kvstore": "\(id)", "code": "\(error.code)", "reason": "\(error.reason)"])
            }
        }
        let sequence = Int64(clamping: update.lastSequence)
        try await store.receive(entries, from: link.remoteDevice, state: PeerIndexState(indexID: update.indexID, maxSequence: sequence))
        var ack = Ubiq_Wire_KeyValueAck()
        ack.storeID = update.storeID
        ack.indexID = update.indexID
        ack.sequence = update.lastSequence
        try await link.send(Ubiq_Wire_Envelope(.keyValueAck(ack)))
    }

    func receiveAcknowledgement(_ ack: Ubiq_Wire_KeyValueAck) async {
        guard let id = try? KeyValueStoreID(ack.storeID), agreement?.stores[id] != nil, let store = stores[id] else { return }
        await store.acknowledged(by: link.remoteDevice, session: ObjectIdentifier(self), indexID: ack.indexID,
                                 sequence: Int64(clamping: ack.sequence))
    }
}
