/// One device of the account as every device comes to know it: what the device says of
/// itself (its name and containers), and when and where a device of the account last had a
/// connection with it. A replicated value: two records of one device merge into the same
/// record in any order (``merged(with:)``).
public struct DeviceRecord: Sendable, Hashable, Codable {
    public var id: DeviceID
    public var name: String
    public var containers: [ContainerID]
    /// When the device last described itself (milliseconds since 1970): the later
    /// description wins.
    public var describedAt: Int64
    /// When a device of the account last had a connection with it (milliseconds since 1970);
    /// 0: never.
    public var lastSeen: Int64
    /// Where it was reached then (`host:port`); empty when never.
    public var address: String
    /// The device's public key (SubjectPublicKeyInfo DER), whose hash is its ID: what an
    /// account rotation issues its new certificate for. Empty while not known.
    public var publicKey: [UInt8]
    /// Where the device says it listens for peers (`host:port`, each of its addresses): part
    /// of its description, so the later description's list wins.
    public var addresses: [String]

    /// The longest name, address and container list a record may carry.
    public static let maximumNameBytes = 255
    public static let maximumAddressBytes = 300
    public static let maximumContainers = 1000
    public static let maximumPublicKeyBytes = 512
    public static let maximumAddresses = 16

    public init(id: DeviceID, name: String, containers: [ContainerID], describedAt: Int64, lastSeen: Int64 = 0, address: String = "",
                publicKey: [UInt8] = [], addresses: [String] = []) {
        self.id = id
        self.name = name
        self.containers = containers
        self.describedAt = describedAt
        self.lastSeen = lastSeen
        self.address = address
        self.publicKey = publicKey
        self.addresses = addresses
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, containers, describedAt, lastSeen, address, publicKey, addresses
    }

    /// Records stored before public keys and addresses were kept decode with none.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        id = try values.decode(DeviceID.self, forKey: .id)
        name = try values.decode(String.self, forKey: .name)
        containers = try values.decode([ContainerID].self, forKey: .containers)
        describedAt = try values.decode(Int64.self, forKey: .describedAt)
        lastSeen = try values.decode(Int64.self, forKey: .lastSeen)
        address = try values.decode(String.self, forKey: .address)
        publicKey = try values.decodeIfPresent([UInt8].self, forKey: .publicKey) ?? []
        addresses = try values.decodeIfPresent([String].self, forKey: .addresses) ?? []
    }

    /// Both records' news: the later description and the later sighting. Ties go to the
    /// larger value, so every device picks the same.
    public func merged(with other: DeviceRecord) -> DeviceRecord {
        var result = self
        if other.describesLater(than: self) {
            result.name = other.name
            result.containers = other.containers
            result.addresses = other.addresses
            result.describedAt = other.describedAt
        }
        // Every key offered was checked against the ID, so any one is the device's.
        if result.publicKey.isEmpty { result.publicKey = other.publicKey }
        if (other.lastSeen, other.address) > (lastSeen, address) {
            result.lastSeen = other.lastSeen
            result.address = other.address
        }
        return result
    }

    private func describesLater(than other: DeviceRecord) -> Bool {
        if describedAt != other.describedAt { return describedAt > other.describedAt }
        if name != other.name { return name > other.name }
        if containers != other.containers {
            return other.containers.map(\.rawValue).lexicographicallyPrecedes(containers.map(\.rawValue))
        }
        return other.addresses.lexicographicallyPrecedes(addresses)
    }
}
