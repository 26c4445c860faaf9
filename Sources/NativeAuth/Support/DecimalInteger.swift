extension Int {
    /// `text` as a decimal integer, read as `Int(text)` reads it: an optional `+` or `-`, then
    /// one or more ASCII digits, nothing else (no spaces), and `nil` when the value does not fit.
    ///
    /// Written out because the standard library's parser is generic over the string's type and
    /// the radix, and was compiled into the SDK for each kind of string it read.
    init?(decimal text: String) {
        var bytes = text.utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int(byte &- UInt8(ascii: "0"))
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            // Gathered as a negative number, which reaches `Int.min`.
            let (next, underflow) = times10.subtractingReportingOverflow(digit)
            guard !overflow, !underflow else { return nil }
            value = next
        }
        if negative {
            self = value
        } else {
            guard value != .min else { return nil }
            self = -value
        }
    }
}
