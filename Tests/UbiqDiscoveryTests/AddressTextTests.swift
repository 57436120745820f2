import Testing
@testable import UbiqDiscovery

@Suite struct AddressTextTests {
    @Test func formatsIPv4AndIPv6() {
        #expect(AddressText.format(rrtype: 1, rdata: [198, 18, 0, 1], interfaceIndex: 3) == "198.18.0.1")
        #expect(AddressText.format(rrtype: 28, rdata: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1], interfaceIndex: 3) == "2001:db8::1")
    }

    @Test func linkLocalAddressesNameTheirInterface() {
        let rdata: [UInt8] = [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1]
        // Interface 1 is the loopback interface on Linux.
        #expect(AddressText.format(rrtype: 28, rdata: rdata, interfaceIndex: 1) == "fe80::1%lo")
        #expect(AddressText.format(rrtype: 28, rdata: rdata, interfaceIndex: 0) == "fe80::1")
    }

    @Test func wrongSizesAreRefused() {
        #expect(AddressText.format(rrtype: 1, rdata: [1, 2, 3], interfaceIndex: 0) == nil)
        #expect(AddressText.format(rrtype: 28, rdata: [1, 2, 3, 4], interfaceIndex: 0) == nil)
        #expect(AddressText.format(rrtype: 16, rdata: [1, 2, 3, 4], interfaceIndex: 0) == nil)
    }
}
