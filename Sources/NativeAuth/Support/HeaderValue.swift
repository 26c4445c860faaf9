/// What may go into an HTTP header value: visible ASCII and spaces, nothing that could end the
/// header (CR, LF) or hide in it (other control characters, non-ASCII).
enum HeaderValue {
    static func isSafe(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

extension StringProtocol {
    /// Whether this and `other` are the same once ASCII letters are folded to one case, as HTTP
    /// header names compare (RFC 9110 §5.1); other characters must match exactly. Unlike
    /// Foundation's `caseInsensitiveCompare`, no Unicode case folding and no bridging.
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { a, b in
            a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20))
        }
    }
}
