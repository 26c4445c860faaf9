/// The rules for headers an app adds to the SDK's requests (custom headers, request interceptors):
/// an `x-` name made of token characters (RFC 9110 §5.6.2), outside the prefixes the SDK reserves
/// for itself, and a value without control characters.
enum AppHeader {
    /// The prefixes reserved for the SDK's own headers.
    static let reservedPrefixes = ["x-ms-", "x-client-", "x-broker-", "x-app-"]

    enum Problem: Equatable, Sendable {
        case invalidName
        case reservedName(prefix: String)
        case invalidValue
    }

    /// The token characters besides ASCII letters and digits.
    private static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    /// Whether `byte` is a token character: an ASCII letter or digit, or one of ``tokenSymbols``.
    /// A byte of a non-ASCII character is none of these.
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }

    /// What is wrong with the header `name: value`; `nil` when an app may set it.
    static func problem(name: String, value: String) -> Problem? {
        let lower = name.lowercased()
        guard lower.hasPrefix("x-"), lower.count > 2, name.utf8.allSatisfy(isToken)
        else { return .invalidName }
        if let prefix = reservedPrefixes.first(where: { lower.hasPrefix($0) }) { return .reservedName(prefix: prefix) }
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            return .invalidValue
        }
        return nil
    }
}

/// What may go into an HTTP header value: visible ASCII and spaces, nothing that could end the
/// header (CR, LF) or hide in it (other control characters, non-ASCII).
enum HeaderValue {
    static func isSafe(_ value: String) -> Bool {
        // Tokens are kilobytes long: read the contiguous bytes where the string has them.
        if let safe = value.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(isVisible) }) { return safe }
        return value.utf8.allSatisfy(isVisible)
    }

    private static func isVisible(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }
}

extension StringProtocol {
    /// Whether this and `other` are the same once ASCII letters are folded to one case, as HTTP
    /// header names compare (RFC 9110 §5.1); other characters must match exactly. Unlike
    /// Foundation's `caseInsensitiveCompare`, no Unicode case folding and no bridging.
    @inline(never)
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // A walk over both views' indices rather than a zip, whose iterator was compiled in too.
        var index = rhs.startIndex
        for a in lhs {
            let b = rhs[index]
            rhs.formIndex(after: &index)
            guard a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20)) else {
                return false
            }
        }
        return true
    }
}
