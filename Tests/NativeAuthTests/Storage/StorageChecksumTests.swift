import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

@Suite("Storage: CRC-32, SHA-256 and the envelope format", .hangLimit)
struct StorageChecksumTests {
    @Test("CRC-32 (IEEE) gives the standard check value and known vectors")
    func crc32Vectors() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test("SHA-256 matches FIPS 180-4 vectors, across block boundaries")
    func sha256Vectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1000)))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        #expect(
            hex(SHA256.hash((0..<768).map { UInt8($0 % 256) }))
                == "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363")
    }

    @Test("Version 1 envelope bytes are pinned: changing them needs a new version")
    func envelopeGolden() throws {
        let bytes = CredentialEnvelope.encode(Data("hi".utf8))
        let expected: [UInt8] =
            Array("NAUTHCS\n".utf8) + [0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x68, 0x69, 0x79, 0xAD, 0xFD, 0x3A]
        #expect(bytes == expected)
        #expect(try CredentialEnvelope.decode(bytes) == Data("hi".utf8))
        #expect(try CredentialEnvelope.decode(CredentialEnvelope.encode(Data())) == Data())
    }
}
