import Testing
import UbiqChunking

@Suite struct ChunkHasherTests {
    @Test func knownSHA256Vectors() {
        #expect(ChunkHasher.hash([UInt8]()).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(ChunkHasher.hash(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
