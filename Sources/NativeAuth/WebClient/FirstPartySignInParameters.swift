public import Foundation

/// What a first-party sign-in (``WebAuthClient/signInFirstParty(_:)``) sends first.
///
/// `openid` is always requested; the other scopes are sent in the order given, each once.
///
/// ```swift
/// let parameters = FirstPartySignInParameters(
///     username: "ada@example.com", password: password, scopes: ["offline_access"])
/// ```
public struct FirstPartySignInParameters: Sendable, CustomStringConvertible, CustomReflectable {
    /// The user's identifier, sent as `username` (the draft's Appendix B.1).
    public var username: String {
        get { fields.username }
        set { fields = Fields(newValue, password, scopes, additionalParameters, correlationId) }
    }
    /// The password, sent as `password`, when the app asks for it up front; `nil` for a provider
    /// that asks for something else (a one-time code) first. `password` is not a parameter of the
    /// draft itself: a provider's profile defines it (see Docs/FirstPartyApps.md).
    public var password: String? {
        get { fields.password }
        set { fields = Fields(username, newValue, scopes, additionalParameters, correlationId) }
    }
    /// Scopes to request besides `openid`, which is always added (`scope`).
    public var scopes: [String] {
        get { fields.scopes }
        set { fields = Fields(username, password, newValue, additionalParameters, correlationId) }
    }
    /// More parameters of the provider's profile, sent as given with the first request (the
    /// draft's §5.1 lets a provider define its own). The names the SDK sets itself are refused with
    /// ``WebSignInError/isInvalidParameters``: `response_type`, `client_id`, `client_secret`,
    /// `scope`, `auth_session`, `code_challenge`, `code_challenge_method`, `username`, `password`,
    /// `otp`, `redirect_uri`, `state`, `nonce`, `request_uri`, `client-request-id`, in any letter case.
    public var additionalParameters: [String: String] {
        get { fields.additionalParameters }
        set { fields = Fields(username, password, scopes, newValue, correlationId) }
    }
    /// The sign-in's correlation id, sent as `client-request-id` with every request; a new one
    /// when `nil`.
    public var correlationId: UUID? {
        get { fields.correlationId }
        set { fields = Fields(username, password, scopes, additionalParameters, newValue) }
    }

    /// The values, behind one reference: a value is one pointer to copy and destroy. A setter
    /// makes new fields, so that copies never share a change.
    private var fields: Fields

    private final class Fields: Sendable {
        let username: String
        let password: String?
        let scopes: [String]
        let additionalParameters: [String: String]
        let correlationId: UUID?

        init(
            _ username: String, _ password: String?, _ scopes: [String], _ additionalParameters: [String: String],
            _ correlationId: UUID?
        ) {
            self.username = username
            self.password = password
            self.scopes = scopes
            self.additionalParameters = additionalParameters
            self.correlationId = correlationId
        }
    }

    /// Creates the parameters of a first-party sign-in.
    ///
    /// Nothing is checked here; ``WebSignInError/isInvalidParameters`` reports a problem when the
    /// sign-in starts, before anything is sent.
    public init(
        username: String, password: String? = nil, scopes: [String] = [],
        additionalParameters: [String: String] = [:], correlationId: UUID? = nil
    ) {
        fields = Fields(username, password, scopes, additionalParameters, correlationId)
    }

    /// The scopes to send: `openid` first, then the others, each once.
    var scopeList: [String] { WebSignInParameters.scopeList(scopes) }

    /// Checks what can be wrong before anything is sent: an empty username or password, a scope
    /// OAuth does not allow, an additional parameter the SDK sets itself.
    func validate() throws(WebSignInError) {
        let correlationId = correlationId
        func invalid(_ note: String) -> WebSignInError { .invalidParameters(note, correlationId: correlationId) }
        guard !username.isEmpty else { throw invalid("The username is empty.") }
        if let password, password.isEmpty { throw invalid("The password is empty; pass nil to send none.") }
        do {
            try WebSignInParameters.check(scopes: scopes)
        } catch {
            throw error.with(correlationId: correlationId)
        }
        try Self.check(additionalParameters, correlationId: correlationId)
    }

    /// Refuses an empty name, or one of `reserved` (lower-cased), which the SDK sets itself.
    static func check(
        _ parameters: [String: String], reserved: [String] = AuthorizationChallengeRequest.reservedNames,
        correlationId: UUID?
    ) throws(WebSignInError) {
        for name in parameters.keys {
            if name.isEmpty { throw .invalidParameters("A parameter has an empty name.", correlationId: correlationId) }
            if reserved.contains(name.lowercased()) {
                throw .invalidParameters(
                    "The parameter '\(name.prefix(40))' is set by the SDK.", correlationId: correlationId)
            }
        }
    }

    /// The username, scopes and which options are set; never the password or parameter values.
    public var description: String {
        var parts = [
            "username: \(username)", "password: \(password == nil ? "nil" : "<redacted>")",
            "scopes: \(scopeList.joined(separator: " "))",
        ]
        if !additionalParameters.isEmpty {
            parts.append("additionalParameters: \(additionalParameters.sortedKeys.joined(separator: ","))")
        }
        return "FirstPartySignInParameters(\(parts.joined(separator: ", ")))"
    }

    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// What a step of a first-party sign-in led to.
@nonexhaustive
public enum FirstPartySignInResult: Sendable {
    /// The provider issued an authorization code, which the SDK exchanged for tokens: the user is
    /// signed in, with the account stored as a browser sign-in's is.
    case completed(UserAccountResult)
    /// The provider wants more from the user (`insufficient_authorization`, the draft's §5.2.2.1):
    /// a one-time code when ``FirstPartyChallengeState/isCodeRequired``, or what its own
    /// ``FirstPartyChallengeState/parameters`` say.
    case challengeRequired(FirstPartyChallengeState)
    /// The provider wants the user in a browser (`redirect_to_web`, the draft's §5.2.2.1.1):
    /// call ``FirstPartyBrowserRequiredState/continueInBrowser(using:)``.
    case browserRequired(FirstPartyBrowserRequiredState)
}
