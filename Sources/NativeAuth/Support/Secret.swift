/// A secret string: a password, a one-time code, a token or a continuation token.
///
/// Every rendering of it (`description`, `debugDescription`, `dump`, string interpolation) shows
/// `<redacted>`; only `reveal` gives the value, and only the wire layer calls it.
struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    init(_ value: String) { self.value = value }

    /// The value, for the request body that needs it.
    var reveal: String { value }
    var isEmpty: Bool { value.isEmpty }

    var description: String { "<redacted>" }
    var debugDescription: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
}
