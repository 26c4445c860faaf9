import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and PKCE use it.
enum Base64URL {
    static func encode(_ data: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((data.count * 4 + 2) / 3)
        var pending: UInt32 = 0
        var pendingBits: UInt32 = 0
        for byte in data {
            pending = pending << 8 | UInt32(byte)
            pendingBits += 8
            while pendingBits >= 6 {
                pendingBits -= 6
                output.append(alphabetBytes[Int((pending >> pendingBits) & 0x3F)])
            }
            pending &= (1 << pendingBits) - 1
        }
        if pendingBits > 0 { output.append(alphabetBytes[Int((pending << (6 - pendingBits)) & 0x3F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url, with or without trailing padding; `nil` for anything else. Spare bits in
    /// the last character are ignored, as base64 decoders do.
    static func decode(_ string: String) -> Data? {
        decode(bytes: Substring(string).utf8)
    }

    /// ``decode(_:)`` of text given as its UTF-8 bytes.
    static func decode<Bytes: BidirectionalCollection<UInt8>>(bytes: Bytes) -> Data?
    where Bytes.SubSequence == Bytes {
        var body = bytes
        while body.last == UInt8(ascii: "=") { body = body.dropLast() }
        return decodeBits(body, allowingSpareBits: true).map { Data($0) }
    }

    /// Decodes unpadded base64url in its one canonical spelling, as JWS segments are written: only
    /// alphabet characters, no padding, and zero spare bits in the last character; `nil` otherwise.
    static func decodeCanonical(_ text: some Collection<UInt8>) -> [UInt8]? {
        decodeBits(text, allowingSpareBits: false)
    }

    /// Unpadded base64url to bytes; `nil` for a character outside the alphabet or a length no
    /// encoding has (4n + 1). Non-zero spare bits in the last character are refused unless allowed.
    private static func decodeBits(_ text: some Collection<UInt8>, allowingSpareBits: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var pending: UInt32 = 0
        var pendingBits: UInt32 = 0
        for character in text {
            guard let value = sextet(character) else { return nil }
            pending = pending << 6 | UInt32(value)
            pendingBits += 6
            if pendingBits >= 8 {
                pendingBits -= 8
                output.append(UInt8(truncatingIfNeeded: pending >> pendingBits))
                pending &= (1 << pendingBits) - 1
            }
        }
        // 0, 2 or 4 spare bits remain after 4n, 4n + 3 or 4n + 2 characters; 6 (after 4n + 1
        // characters) cannot happen in any encoding.
        guard pendingBits < 6, allowingSpareBits || pending == 0 else { return nil }
        return output
    }

    /// The 6-bit value of a base64url character.
    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }

    private static let alphabetBytes: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
