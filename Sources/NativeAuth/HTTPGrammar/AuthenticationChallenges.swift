import Foundation

/// The challenges of one `WWW-Authenticate` field value (RFC 9110 §11.6.1): each an auth-scheme
/// with its auth-params (§11.2), or with a token68, which is skipped.
///
/// The value is read once, byte by byte, and is refused whole (`nil`) when it is longer than
/// ``maximumLength``, holds more than ``maximumChallenges`` challenges or ``maximumParameters``
/// parameters in one, breaks the grammar anywhere (an unterminated quoted-string, a control
/// character, a missing `=` or comma), or names a parameter twice in one challenge (§11.2: each
/// name occurs once per challenge; which of two values is meant cannot be known). A parameter is
/// found only where the grammar puts one, never inside another's quoted value.
///
/// Two leniencies, neither ambiguous: empty list elements anywhere a list allows one, also right
/// after a scheme and its space (`Bearer , error=…`: §5.6.1 has recipients accept them), and `=`s
/// ending an unquoted value (`claims=e30=`: base64 padding, which a token cannot hold).
struct AuthenticationChallenges: Sendable, Equatable {
    /// One challenge: its scheme and parameters, names lowercased (both are case-insensitive,
    /// §11.1, §11.2), values unquoted (quoted-pairs undone).
    struct Challenge: Sendable, Equatable {
        let scheme: String
        let parameters: [String: String]
    }

    static let maximumLength = 16 * 1024
    static let maximumChallenges = 16
    static let maximumParameters = 32

    let challenges: [Challenge]

    /// The challenges of `value`, or `nil` when it cannot be read as a whole.
    init?(_ value: String) {
        guard value.utf8.count <= Self.maximumLength else { return nil }
        var reader = Reader(bytes: Array(value.utf8))
        guard let challenges = reader.challenges() else { return nil }
        self.challenges = challenges
    }

    /// The schemes whose challenges carry OAuth's `error` for an access token: `Bearer` (RFC 6750
    /// §3) and `DPoP` (RFC 9449 §7.1), lowercased.
    static let tokenSchemes = ["bearer", "dpop"]

    /// The first challenge of `schemes` (lowercased) whose `error` is `error` (lowercased), in any
    /// letter case.
    func first(schemes: [String] = tokenSchemes, error: String) -> Challenge? {
        challenges.first { schemes.contains($0.scheme) && $0.parameters["error"]?.lowercased() == error }
    }

    /// Whether `header` holds a `Bearer` or `DPoP` challenge whose `error` is `error` (lowercased):
    /// only that parameter of a challenge the grammar reads, never text inside another parameter;
    /// `false` for a value that cannot be read as a whole.
    static func hasTokenError(_ error: String, in header: String?) -> Bool {
        guard let header, let challenges = AuthenticationChallenges(header) else { return false }
        return challenges.first(error: error) != nil
    }

    /// A reader over the bytes of a field value.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        private static let space: UInt8 = 0x20
        private static let tab: UInt8 = 0x09
        private static let comma: UInt8 = 0x2C
        private static let equals: UInt8 = 0x3D
        private static let quote: UInt8 = 0x22
        private static let backslash: UInt8 = 0x5C

        private var atEnd: Bool { index >= bytes.count }
        private var current: UInt8? { atEnd ? nil : bytes[index] }

        /// `tchar` (RFC 9110 §5.6.2).
        private static func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }

        /// A token68 character (§11.2), before its trailing `=`s.
        private static func isToken68Character(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
            default: "-._~+/".utf8.contains(byte)
            }
        }

        private mutating func skipWhitespace() {
            while let byte = current, byte == Self.space || byte == Self.tab { index += 1 }
        }

        /// Skips the separators of a list, empty elements included (RFC 9110 §5.6.1).
        private mutating func skipSeparators() {
            while true {
                skipWhitespace()
                guard current == Self.comma else { return }
                index += 1
            }
        }

        /// A token, lowercased; `nil` (nothing read) when none starts here.
        private mutating func token() -> String? {
            let start = index
            while let byte = current, Self.isTokenCharacter(byte) { index += 1 }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
        }

        /// Every challenge of the value, or `nil` when the value is malformed.
        mutating func challenges() -> [Challenge]? {
            var challenges: [Challenge] = []
            skipSeparators()
            while !atEnd {
                guard challenges.count < AuthenticationChallenges.maximumChallenges,
                    let challenge = challenge()
                else { return nil }
                challenges.append(challenge)
                skipSeparators()
            }
            return challenges
        }

        /// One challenge, from its scheme up to the comma that starts the next one (not consumed).
        private mutating func challenge() -> Challenge? {
            guard let scheme = token() else { return nil }
            let afterScheme = index
            skipWhitespace()
            if atEnd { return Challenge(scheme: scheme, parameters: [:]) }
            // RFC 9110 §11.6.1: the scheme and what follows it are separated by spaces.
            let spaced = index > afterScheme
            if current == Self.comma {
                // `scheme SP , name=…`: the auth-param list opens with an empty element, which a
                // recipient must accept (§5.6.1); no scheme can be followed by `name=` (§11.6.1), so
                // the parameter is this challenge's. Without the space the list never began.
                let comma = index
                skipSeparators()
                guard spaced, !atEnd, startsParameter() else {
                    index = comma
                    return Challenge(scheme: scheme, parameters: [:])
                }
                guard let first = parameter() else { return nil }
                return parameters(of: scheme, first: first)
            }
            guard spaced else { return nil }
            let start = index
            guard let first = parameter() else {
                // Not an auth-param list: a token68, which ends the challenge.
                index = start
                guard token68() else { return nil }
                return Challenge(scheme: scheme, parameters: [:])
            }
            return parameters(of: scheme, first: first)
        }

        /// The auth-params of `scheme`'s challenge after its `first`, up to the next challenge;
        /// `nil` when one is malformed or named twice, or there are too many.
        private mutating func parameters(of scheme: String, first: (String, String)) -> Challenge? {
            var parameters = [first.0: first.1]
            while true {
                skipWhitespace()
                if atEnd { break }
                guard current == Self.comma else { return nil }
                skipSeparators()
                if atEnd || !startsParameter() { break }
                guard parameters.count < AuthenticationChallenges.maximumParameters,
                    let (name, value) = parameter(), parameters[name] == nil
                else { return nil }
                parameters[name] = value
            }
            return Challenge(scheme: scheme, parameters: parameters)
        }

        /// Whether a `name BWS "="` starts here, rather than the scheme of the next challenge.
        private mutating func startsParameter() -> Bool {
            let start = index
            defer { index = start }
            guard token() != nil else { return false }
            skipWhitespace()
            return current == Self.equals
        }

        /// `token BWS "=" BWS ( token / quoted-string )`; `nil` when none starts here or its value
        /// is malformed.
        private mutating func parameter() -> (String, String)? {
            guard let name = token() else { return nil }
            skipWhitespace()
            guard current == Self.equals else { return nil }
            index += 1
            skipWhitespace()
            guard let byte = current else { return nil }
            if byte == Self.quote { return quotedString().map { (name, $0) } }
            let start = index
            while let byte = current, Self.isTokenCharacter(byte) { index += 1 }
            guard index > start else { return nil }
            // `=`s ending the value, as base64 padding ends a token68 (§11.2): not a token's, but
            // unambiguous, since no parameter name or list separator starts with `=`.
            while current == Self.equals { index += 1 }
            return (name, String(decoding: bytes[start..<index], as: UTF8.self))
        }

        /// A quoted-string (RFC 9110 §5.6.4) from its opening quote, unquoted; `nil` when it is not
        /// terminated, holds a control character other than a tab, or is not UTF-8.
        private mutating func quotedString() -> String? {
            index += 1
            var value: [UInt8] = []
            while let byte = current {
                index += 1
                if byte == Self.quote { return String(bytes: value, encoding: .utf8) }
                var character = byte
                if byte == Self.backslash {
                    guard let escaped = current else { return nil }
                    index += 1
                    character = escaped
                }
                guard character == Self.tab || (character >= 0x20 && character != 0x7F) else { return nil }
                value.append(character)
            }
            return nil
        }

        /// A token68, which must end the challenge.
        private mutating func token68() -> Bool {
            let start = index
            while let byte = current, Self.isToken68Character(byte) { index += 1 }
            guard index > start else { return false }
            while current == Self.equals { index += 1 }
            skipWhitespace()
            return atEnd || current == Self.comma
        }
    }
}
