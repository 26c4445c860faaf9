/// What may go into an HTTP header value: visible ASCII and spaces, nothing that could end the
/// header (CR, LF) or hide in it (other control characters, non-ASCII).
enum HeaderValue {
    static func isSafe(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
