import Foundation

/// The typed success answers of the API. Each decoder takes a 200 body that is not a redirect.

/// `{continuation_token, expires_in?}`: initiate, the start and continue endpoints.
struct ContinuationAnswer: Sendable, Equatable {
    let continuationToken: Secret
    let expiresIn: Int?

    init(_ object: WireObject) throws(WireFailure) {
        continuationToken = try object.requiredToken()
        expiresIn = object.int("expires_in")
    }
}

/// A code sent out of band: where to, how long it is.
/// A class: built once and only read, it is shared by the answers and states that hold it.
final class CodeChallenge: Sendable, Equatable {
    let continuationToken: Secret
    let channel: ChannelType
    let sentTo: String
    let codeLength: Int?
    let interval: Int?

    init(continuationToken: Secret, channel: ChannelType, sentTo: String, codeLength: Int?, interval: Int?) {
        self.continuationToken = continuationToken
        self.channel = channel
        self.sentTo = sentTo
        self.codeLength = codeLength
        self.interval = interval
    }

    static func == (lhs: CodeChallenge, rhs: CodeChallenge) -> Bool {
        lhs.continuationToken == rhs.continuationToken && lhs.channel == rhs.channel && lhs.sentTo == rhs.sentTo
            && lhs.codeLength == rhs.codeLength && lhs.interval == rhs.interval
    }
}

/// The answer of a challenge endpoint: how the user goes on. Its `challenge_type` is read through
/// ``ChallengeType``, the one table of the names the app offers and the server answers, so a type
/// whose answer carries nothing but the token needs no case here.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum ChallengeAnswer: Sendable, Equatable {
    /// A code was sent out of band (`oob`).
    case code(CodeChallenge)
    /// The server wants a credential of this type that it did not send, such as the password.
    case credential(ChallengeType, continuationToken: Secret)
    /// The contact being registered was verified already (`preverified`, method registration only).
    case preverified(continuationToken: Secret)

    init(_ object: WireObject) throws(WireFailure) {
        let token = try object.requiredToken()
        let name = object.string("challenge_type")?.lowercased()
        switch name.flatMap(ChallengeType.init(rawValue:)) {
        case .oob:
            let codeLength = object.int("code_length").flatMap { (1...64).contains($0) ? $0 : nil }
            self = .code(
                CodeChallenge(
                    continuationToken: token, channel: ChannelType(wire: object.string("challenge_channel")),
                    sentTo: object.string("challenge_target_label") ?? object.string("challenge_target") ?? "",
                    codeLength: codeLength, interval: object.int("interval")))
        case .some(let type):
            self = .credential(type, continuationToken: token)
        case nil where name == "preverified":
            self = .preverified(continuationToken: token)
        case nil:
            throw .unexpected(.init(problem: .unknownValue(field: "challenge_type", value: name ?? "<missing>")))
        }
    }

    /// The `challenge_type` the answer named.
    var challengeType: String {
        switch self {
        case .code: ChallengeType.oob.rawValue
        case .credential(let type, _): type.rawValue
        case .preverified: "preverified"
        }
    }
}

/// An authentication method from an introspect endpoint.
struct WireAuthMethod: Sendable, Equatable {
    let id: String
    let challengeType: String
    let channel: ChannelType
    let loginHint: String
}

/// `{continuation_token, methods}`: sign-in and register introspect.
struct IntrospectAnswer: Sendable, Equatable {
    let continuationToken: Secret
    let methods: [WireAuthMethod]

    init(_ object: WireObject) throws(WireFailure) {
        continuationToken = try object.requiredToken()
        methods = (object.array("methods") ?? []).compactMap { value -> WireAuthMethod? in
            guard let members = value.objectValue else { return nil }
            let method = WireObject(members)
            guard let id = method.string("id"), !id.isEmpty else { return nil }
            return WireAuthMethod(
                id: id, challengeType: method.string("challenge_type") ?? "oob",
                channel: ChannelType(wire: method.string("challenge_channel")),
                loginHint: method.string("login_hint") ?? "")
        }
        guard !methods.isEmpty else { throw .unexpected(.init(problem: .missingField("methods"))) }
    }
}

/// The token endpoint's success answer.
/// A class: read once and handed along by reference, never changed.
final class TokenAnswer: Sendable {
    let tokenType: String
    let accessToken: Secret
    let refreshToken: Secret?
    let idToken: Secret?
    let scopes: [String]
    let expiresIn: Int?
    let clientInfo: String?
    /// The server's `Date` header, for clock-skew correction.
    let serverDate: Date?
    /// A web provider's `auth_session` (OAuth 2.0 for First-Party Applications §6.1), kept with the
    /// account for its later first-party sign-ins; the native API sends none.
    let authSession: Secret?

    /// The longest access-token lifetime the SDK believes: one year.
    static let maximumLifetime = 365 * 86_400

    init(
        tokenType: String, accessToken: Secret, refreshToken: Secret?, idToken: Secret?, scopes: [String],
        expiresIn: Int?, clientInfo: String?, serverDate: Date?, authSession: Secret? = nil
    ) {
        self.authSession = authSession
        self.tokenType = tokenType
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scopes = scopes
        self.expiresIn = expiresIn.map { min(max(0, $0), Self.maximumLifetime) }
        self.clientInfo = clientInfo
        self.serverDate = serverDate
    }

    init(_ object: WireObject, headers: HTTPResponse) throws(WireFailure) {
        guard let access = object.string("access_token"), !access.isEmpty else {
            throw .unexpected(.init(problem: .missingField("access_token")))
        }
        // Tokens go into headers: a control character there could add a header of its own.
        for (field, value) in [
            ("access_token", access), ("refresh_token", object.string("refresh_token") ?? ""),
            ("token_type", object.string("token_type") ?? ""),
        ] where !HeaderValue.isSafe(value) {
            throw .unexpected(.init(problem: .unknownValue(field: field, value: "<control characters>")))
        }
        tokenType = object.string("token_type") ?? "Bearer"
        accessToken = Secret(access)
        refreshToken = object.string("refresh_token").flatMap { $0.isEmpty ? nil : Secret($0) }
        idToken = object.string("id_token").flatMap { $0.isEmpty ? nil : Secret($0) }
        scopes = object.list("scope")
        // A lifetime beyond a year is not one a server means: clamped, so a cached token cannot
        // outlive every refresh.
        expiresIn = object.int("expires_in").flatMap { $0 >= 0 ? min($0, Self.maximumLifetime) : nil }
        clientInfo = object.string("client_info")
        serverDate = headers.header("Date").flatMap(HTTPDate.parse)
        authSession = nil
    }
}

/// `{continuation_token, poll_interval}` from reset-password submit.
struct ResetSubmitAnswer: Sendable, Equatable {
    let continuationToken: Secret
    /// Seconds between polls, kept within 1…60.
    let pollInterval: Int

    init(_ object: WireObject) throws(WireFailure) {
        continuationToken = try object.requiredToken()
        pollInterval = min(max(object.int("poll_interval") ?? 2, 1), 60)
    }
}

/// `{status, continuation_token}` from reset-password poll_completion.
struct PollAnswer: Sendable, Equatable {
    enum Status: Sendable, Equatable {
        case notStarted, inProgress, succeeded, failed
    }

    let status: Status
    let continuationToken: Secret?

    init(_ object: WireObject) throws(WireFailure) {
        switch object.string("status")?.lowercased() {
        case "not_started": status = .notStarted
        case "in_progress": status = .inProgress
        case "succeeded": status = .succeeded
        case "failed": status = .failed
        case let other:
            throw .unexpected(.init(problem: .unknownValue(field: "status", value: other ?? "<missing>")))
        }
        // `succeeded` without a token means the password was changed; sign-in after it is then
        // unavailable.
        continuationToken = object.string("continuation_token").flatMap { $0.isEmpty ? nil : Secret($0) }
    }
}

extension WireObject {
    func requiredToken() throws(WireFailure) -> Secret {
        guard let token = string("continuation_token"), !token.isEmpty else {
            throw .unexpected(.init(problem: .missingField("continuation_token")))
        }
        return Secret(token)
    }
}
