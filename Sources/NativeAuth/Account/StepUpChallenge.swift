import Foundation

/// What a protected resource asks for when the sign-in behind an access token is not strong or
/// recent enough: the `insufficient_user_authentication` challenge of RFC 9470 (OAuth 2.0 Step Up
/// Authentication Challenge Protocol, §3), on a `Bearer` (RFC 6750) or `DPoP` (RFC 9449)
/// `WWW-Authenticate` challenge.
///
/// ``UserAccountResult/send(_:scopes:using:)`` reads it and throws
/// ``AuthorizedRequestError/isStepUpRequired`` with it; it never signs the user in again by itself
/// (RFC 9470 §9: a resource could abuse that). Pass it to
/// ``WebAuthClient/signInFirstParty(continuing:stepUp:password:scopes:additionalParameters:)``, or
/// to ``WebSignInParameters/init(stepUp:scopes:loginHint:)`` for a browser sign-in: its
/// ``acrValues`` and ``maxAge`` are sent as `acr_values` and `max_age` (RFC 9470 §4), and the new
/// ID token is checked against them.
///
/// ```swift
/// // A 401 from an API called with another HTTP stack:
/// if let stepUp = StepUpChallenge(wwwAuthenticate: header) { … }
/// ```
public struct StepUpChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The authentication context class references the resource takes, one of which the new
    /// sign-in must meet, in the resource's order of preference (`acr_values`); empty when it
    /// named none.
    public var acrValues: [String]
    /// The most seconds that may have passed since the user last actively authenticated
    /// (`max_age`); `nil` when the resource set no limit.
    public var maxAge: Int?
    /// The scopes the resource also needs (`scope`, RFC 6750 §3.1, which RFC 9470 §3 allows
    /// beside the others); empty when it named none.
    public var scopes: [String]
    /// The resource's `error_description`, at most 300 characters: text for the developer, not
    /// the user.
    public var message: String?

    /// A challenge of your own, such as one your API sends in its own format.
    public init(acrValues: [String] = [], maxAge: Int? = nil, scopes: [String] = [], message: String? = nil) {
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.scopes = scopes
        self.message = message
    }

    /// Reads the step-up challenge from a `WWW-Authenticate` value: the first `Bearer` or `DPoP`
    /// challenge with `error="insufficient_user_authentication"`.
    ///
    /// `nil` when there is none, or when the value cannot be read as a whole (see below): a
    /// requirement the SDK cannot read for certain is not guessed at. Refused: a value over 16 KiB,
    /// malformed syntax (RFC 9110 §11.6.1: an unterminated quoted-string, a control character), a
    /// parameter named twice in one challenge, an `acr_values` entry with a control character, a
    /// `max_age` that is not a non-negative integer of at most nine digits (RFC 9470 §3: a
    /// non-negative integer, as a token or a quoted-string), a `scope` with a character RFC 6749
    /// §3.3 does not allow. Repeated `acr_values` and scopes are kept once.
    public init?(wwwAuthenticate value: String) {
        guard let challenges = AuthenticationChallenges(value),
            let challenge = challenges.first(error: "insufficient_user_authentication")
        else { return nil }
        let parameters = challenge.parameters
        var acrValues: [String] = []
        for value in Self.words(parameters["acr_values"]) where !acrValues.contains(value) {
            guard OAuthToken.isValid(value) else { return nil }
            acrValues.append(value)
        }
        var scopes: [String] = []
        for scope in Self.words(parameters["scope"]) where !scopes.contains(scope) {
            guard OAuthToken.isValid(scope) else { return nil }
            scopes.append(scope)
        }
        var maxAge: Int?
        if let text = parameters["max_age"] {
            guard let seconds = Self.seconds(text) else { return nil }
            maxAge = seconds
        }
        let message = parameters["error_description"].flatMap { text in
            Self.hasControlCharacter(text) ? nil : String(text.prefix(300))
        }
        self.init(acrValues: acrValues, maxAge: maxAge, scopes: scopes, message: message)
    }

    /// The challenge's requirements; its message is left out.
    public var description: String {
        var parts = ["acrValues: [\(acrValues.joined(separator: ", "))]"]
        if let maxAge { parts.append("maxAge: \(maxAge)") }
        if !scopes.isEmpty { parts.append("scopes: [\(scopes.joined(separator: ", "))]") }
        return "StepUpChallenge(\(parts.joined(separator: ", ")))"
    }

    /// The space-separated words of a parameter (RFC 9470 §3, RFC 6750 §3).
    private static func words(_ value: String?) -> [String] {
        (value ?? "").split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    /// A non-negative integer of at most nine significant digits (so that it fits every platform's
    /// `Int` and any date arithmetic), written with ASCII digits only.
    private static func seconds(_ text: String) -> Int? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let significant = digits.drop { $0 == 0x30 }
        guard significant.count <= 9 else { return nil }
        return significant.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Why a sign-in cannot carry the challenge, for one the app made with values that cannot be
    /// sent; `nil` when it can. Checked before anything is sent.
    func problem() -> String? {
        if let maxAge, maxAge < 0 { return "The step-up's maxAge must not be negative." }
        for value in acrValues where !OAuthToken.isValid(value) {
            return
                "A step-up acrValues entry is empty or holds a space, a quote, a backslash or a character outside ASCII."
        }
        return nil
    }
}
