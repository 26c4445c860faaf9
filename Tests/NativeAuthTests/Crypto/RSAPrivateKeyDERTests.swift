import NativeAuthTestSupport
import Testing

@testable import AuthCrypto

/// DER of a SEQUENCE holding `integers` (each already a magnitude), for building malformed keys.
private func sequence(_ integers: [[UInt8]]) -> [UInt8] {
    DER.sequence(integers.flatMap { DER.unsignedInteger($0) })
}

@Suite("Crypto: RSA private key storage form, malformed input", .hangLimit)
struct RSAPrivateKeyDERTests {
    static let valid = bytes(hex: PrivateKeyFixtures.rfc7515PKCS1DER)

    /// Parses `bytes`: `nil` when a key came out (then it must sign and verify), else the kind of
    /// typed refusal. A trap fails the whole run, which is the point.
    static func refusal(_ bytes: [UInt8]) -> String? {
        do {
            let key = try RSAPrivateKey(pkcs1DER: bytes)
            var random = SplitMix64(seed: 1)
            let signature = try key.signSHA256([1, 2, 3], using: &random)
            #expect(PortableRS256Verifier().isValidSignature(signature, of: [1, 2, 3], key: key.publicKey))
            return nil
        } catch {
            switch error as? RSAPrivateKeyError {
            case .malformedEncoding: return "malformed"
            case .unsupportedVersion: return "version"
            case .publicKey: return "public key"
            case .inconsistent(let check): return check.rawValue
            case .unsupportedSize, .randomSourceFailed, nil: return "\(error)"
            }
        }
    }

    static func parses(_ bytes: [UInt8]) -> Bool { refusal(bytes) == nil }

    @Test("Every truncation, and any byte after the SEQUENCE, is refused as malformed")
    func truncationsAndTrailingBytes() {
        for length in 0..<Self.valid.count {
            #expect(throws: RSAPrivateKeyError.self) { try RSAPrivateKey(pkcs1DER: Self.valid.prefix(length)) }
        }
        #expect(throws: RSAPrivateKeyError.malformedEncoding("bytes after the SEQUENCE")) {
            try RSAPrivateKey(pkcs1DER: Self.valid + [0])
        }
    }

    @Test("Malformed DER: each refused with its reason")
    func malformedDER() throws {
        let members = try PrivateKeyMembers.rfc7515()
        let integers: [[UInt8]] = [
            [0], members.n.bigEndianBytes, members.e.bigEndianBytes, members.d.bigEndianBytes,
            members.p.bigEndianBytes, members.q.bigEndianBytes, members.dP.bigEndianBytes,
            members.dQ.bigEndianBytes, members.qInv.bigEndianBytes,
        ]
        #expect(sequence(integers) == Self.valid)
        let body = Array(Self.valid.dropFirst(4))  // 30 82 LL LL
        let cases: [([UInt8], String)] = [
            ([], "truncated before a tag"),
            ([0x31] + Self.valid.dropFirst(), "tag 49 where 48 belongs"),
            ([0x30, 0x80] + body + [0, 0], "indefinite length"),
            ([0x30, 0x83, 0x00] + Self.valid[2...3] + body, "length not minimal"),
            ([0x30, 0x81, 0x05, 0x02, 0x01, 0x00, 0x02, 0x00], "length not minimal"),
            ([0x30, 0x85, 0, 0, 0, 0x04, 0xa3] + body, "length of 5 bytes"),
            ([0x30, 0x84, 0x7f, 0xff, 0xff, 0xff], "length of 4 bytes"),
            ([0x30, 0x82, 0x04], "truncated length"),
            ([0x30, 0x03, 0x02, 0x01, 0x80], "negative INTEGER"),
            ([0x30, 0x04, 0x02, 0x02, 0x00, 0x01], "INTEGER not minimal"),
            ([0x30, 0x02, 0x02, 0x00], "empty INTEGER"),
            ([0x30, 0x03, 0x04, 0x01, 0x00], "tag 4 where 2 belongs"),
            (sequence(Array(integers.prefix(8))), "truncated before a tag"),
            (sequence(integers + [[1]]), "more than the nine INTEGERs of a two-prime key"),
        ]
        for (bytes, reason) in cases {
            #expect(throws: RSAPrivateKeyError.malformedEncoding(reason)) { try RSAPrivateKey(pkcs1DER: bytes) }
        }
        for version: [UInt8] in [[1], [2], [1, 0]] {
            #expect(throws: RSAPrivateKeyError.unsupportedVersion) {
                try RSAPrivateKey(pkcs1DER: sequence([version] + integers.dropFirst()))
            }
        }
        // Numbers swapped between places parse as DER but do not belong together.
        var swapped = integers
        swapped.swapAt(3, 4)
        #expect(throws: RSAPrivateKeyError.self) { try RSAPrivateKey(pkcs1DER: sequence(swapped)) }
        #expect(throws: RSAPrivateKeyError.publicKey(.modulusTooSmall(bits: 0))) {
            try RSAPrivateKey(pkcs1DER: sequence([[0], [0], [0], [0], [0], [0], [0], [0], [0]]))
        }
    }

    @Test("Seeded mutations of a valid key: refused with a typed error, or a key that signs correctly")
    func mutations() {
        var random = SplitMix64(seed: 0xDE5)
        var refusals: [String: Int] = [:]
        for _ in 0..<400 {
            var bytes = Self.valid
            for _ in 0..<random.int(1...3) {
                let index = random.below(bytes.count)
                switch random.below(5) {
                case 0: bytes[index] ^= 1 << UInt8(random.below(8))
                case 1: bytes[index] = random.byte()
                case 2: bytes.remove(at: index)
                case 3: bytes.insert(random.byte(), at: index)
                default: bytes.replaceSubrange(index..<min(bytes.count, index + 4), with: random.bytes(random.below(6)))
                }
            }
            refusals[Self.refusal(bytes) ?? "parsed", default: 0] += 1
        }
        // A change to a number breaks a consistency check; only changes that leave the DER and the
        // numbers as they were (none of these) could parse. Both the DER reader and the checks refuse some.
        #expect(refusals["parsed"] == nil, "\(refusals)")
        #expect(refusals["malformed", default: 0] > 50, "\(refusals)")
        #expect(refusals["primes", default: 0] + refusals["crtExponents", default: 0] > 20, "\(refusals)")
    }

    @Test("Random bytes, and DER-shaped random numbers, never parse and never trap")
    func randomInput() {
        var random = SplitMix64(seed: 0xBAD)
        for _ in 0..<300 {
            #expect(!Self.parses(random.bytes(random.below(300))))
            let shaped = sequence([[0]] + (0..<8).map { _ in random.bytes(random.int(1...300)) })
            #expect(!Self.parses(shaped))
        }
        // The right sizes, random values: refused by the consistency checks, cheaply.
        for _ in 0..<20 {
            var integers: [[UInt8]] = [[0], [0x80] + random.bytes(254) + [1], [1, 0, 1]]
            integers += [random.bytes(256), random.bytes(128), random.bytes(128)]
            integers += [random.bytes(128), random.bytes(128), random.bytes(128)]
            #expect(!Self.parses(sequence(integers)))
        }
    }
}
