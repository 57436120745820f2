import UbiqModel
import UbiqWire

/// The index updates a flooding peer sends, for the flood test and the benchmark's flood
/// peer alike: the same 500 folders each time, every one at a newer version than before.
public enum FloodUpdate {
    /// The `round`th update (from 1) of `device` for `container`.
    public static func folders(_ round: Int, container: ContainerID, indexID: UInt64, device: DeviceID) -> Ubiq_Wire_IndexUpdate {
        var update = Ubiq_Wire_IndexUpdate()
        update.containerID = container.rawValue
        update.indexID = indexID
        update.lastSequence = UInt64(round * 500)
        update.items = (0..<500).map { index in
            var folder = Ubiq_Wire_FileInfo()
            folder.path = "Documents/flood/d\(index)"
            folder.kind = .directory
            folder.mtimeNs = 1_700_000_000_000_000_000
            var counter = Ubiq_Wire_Counter()
            counter.device = device.rawValue
            counter.value = UInt64(round)
            folder.version = [counter]
            folder.modifiedBy = device.rawValue
            folder.sequence = UInt64((round - 1) * 500 + index + 1)
            return folder
        }
        return update
    }
}
