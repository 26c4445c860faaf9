import Foundation

/// Reads the payload of a JSON Web Token (RFC 7519) without checking its signature.
///
/// Only for tokens taken straight from the token endpoint over TLS, where the channel vouches for
/// the issuer; never for tokens that arrive any other way.
enum JWT {
    static func payload(of token: String) -> [String: JSONValue]? {
        // Split on the bytes: the segments are ASCII, and a split on characters costs more than
        // the decoding.
        let parts = token.utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        guard let data = Base64URL.decode(bytes: parts[1]),
            let value = try? JSONValue.parse(data),
            case .object(let members) = value
        else { return nil }
        return members
    }
}
