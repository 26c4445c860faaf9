import Foundation
import NativeAuth

/// What a developer would write by hand against the native authentication API: form bodies
/// through `URLComponents`, answers through `JSONDecoder`, the ID token through base64url and
/// `JSONSerialization`, tokens in a dictionary behind a lock. The baseline the SDK is measured
/// against; it sends the same fields to the same endpoints.
final class HandRolledClient: @unchecked Sendable {
    struct Failure: Error { let what: String }

    struct ContinuationAnswer: Decodable {
        let continuation_token: String?
        let challenge_type: String?
        let binding_method: String?
        let challenge_channel: String?
        let challenge_target_label: String?
        let code_length: Int?
        let interval: Int?
    }

    struct TokenAnswer: Decodable {
        let token_type: String
        let scope: String?
        let expires_in: Int
        let access_token: String
        let refresh_token: String?
        let id_token: String?
        let client_info: String?
    }

    struct Tokens: Codable {
        var accessToken: String
        var expiresOn: Date
        var scopes: [String]
    }

    struct Account: Codable {
        var identifier: String
        var username: String
        var idToken: String
        var refreshToken: String?
        var tokens: [String: Tokens]
    }

    let transport: any HTTPTransport
    let authority: URL
    let clientId: String
    private let lock = NSLock()
    private var account: Account?
    private let decoder = JSONDecoder()

    init(transport: any HTTPTransport, authority: URL, clientId: String) {
        self.transport = transport
        self.authority = authority
        self.clientId = clientId
    }

    private func post(_ path: String, _ fields: [(String, String)]) async throws -> Data {
        var components = URLComponents()
        components.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        let body = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        let request = HTTPRequest(
            method: "POST", url: authority.appendingPathComponent(path),
            headers: [
                "Content-Type": "application/x-www-form-urlencoded", "client-request-id": UUID().uuidString,
                "x-client-SKU": "handrolled", "x-client-Ver": "1.0",
            ],
            body: Data(body.utf8))
        let response = try await transport.send(request)
        guard response.statusCode == 200 else { throw Failure(what: "status \(response.statusCode)") }
        return response.body
    }

    private func continuation(_ path: String, _ fields: [(String, String)]) async throws -> ContinuationAnswer {
        try decoder.decode(ContinuationAnswer.self, from: try await post(path, fields))
    }

    /// The first two steps of every sign-in: initiate, then challenge.
    private func initiateAndChallenge(username: String) async throws -> ContinuationAnswer {
        let started = try await continuation(
            "oauth2/v2.0/initiate",
            [("client_id", clientId), ("username", username), ("challenge_type", "oob password redirect")])
        let challenge = try await continuation(
            "oauth2/v2.0/challenge",
            [
                ("client_id", clientId), ("continuation_token", started.continuation_token ?? ""),
                ("challenge_type", "oob password redirect"),
            ])
        return challenge
    }

    /// Email code sign-in: initiate, challenge, token with the code.
    func signInWithCode(username: String, code: String, scopes: [String]) async throws {
        let challenge = try await initiateAndChallenge(username: username)
        guard challenge.challenge_type == "oob", let token = challenge.continuation_token else {
            throw Failure(what: "challenge")
        }
        try await redeem(
            [
                ("client_id", clientId), ("continuation_token", token), ("grant_type", "oob"), ("oob", code),
                ("scope", (["openid", "profile", "offline_access"] + scopes).joined(separator: " ")),
                ("client_info", "true"),
            ], scopes: scopes, username: username)
    }

    /// Password sign-in: initiate, challenge, token with the password.
    func signInWithPassword(username: String, password: String, scopes: [String]) async throws {
        let challenge = try await initiateAndChallenge(username: username)
        guard challenge.challenge_type == "password", let token = challenge.continuation_token else {
            throw Failure(what: "challenge")
        }
        try await redeem(
            [
                ("client_id", clientId), ("continuation_token", token), ("grant_type", "password"),
                ("password", password),
                ("scope", (["openid", "profile", "offline_access"] + scopes).joined(separator: " ")),
                ("client_info", "true"), ("username", username),
            ], scopes: scopes, username: username)
    }

    /// A refresh for `scopes`, whatever is cached.
    func refresh(scopes: [String]) async throws {
        guard let refreshToken = lock.withLock({ account?.refreshToken }) else { throw Failure(what: "no account") }
        try await redeem(
            [
                ("client_id", clientId), ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                ("scope", (["openid", "profile", "offline_access"] + scopes).joined(separator: " ")),
                ("client_info", "true"),
            ], scopes: scopes, username: nil)
    }

    /// The cached access token for `scopes`, if any and not about to expire.
    func cachedToken(scopes: [String]) -> String? {
        let key = scopes.sorted().joined(separator: " ")
        return lock.withLock {
            guard let tokens = account?.tokens[key], tokens.expiresOn > Date().addingTimeInterval(300) else {
                return nil
            }
            return tokens.accessToken
        }
    }

    /// The account as JSON, as an app would keep it.
    func saved() throws -> Data { try JSONEncoder().encode(lock.withLock { account }) }

    /// Loads a saved account.
    func restore(_ data: Data) throws {
        let restored = try decoder.decode(Account.self, from: data)
        lock.withLock { account = restored }
    }

    private func redeem(_ fields: [(String, String)], scopes: [String], username: String?) async throws {
        let answer = try decoder.decode(TokenAnswer.self, from: try await post("oauth2/v2.0/token", fields))
        guard answer.token_type.lowercased() == "bearer" else { throw Failure(what: "token type") }
        var identifier = ""
        var name = username ?? ""
        if let idToken = answer.id_token {
            let claims = try Self.claims(of: idToken)
            identifier = "\(claims["oid"] as? String ?? "").\(claims["tid"] as? String ?? "")"
            if name.isEmpty { name = claims["preferred_username"] as? String ?? "" }
        }
        let key = scopes.sorted().joined(separator: " ")
        let tokens = Tokens(
            accessToken: answer.access_token, expiresOn: Date().addingTimeInterval(TimeInterval(answer.expires_in)),
            scopes: scopes)
        lock.withLock {
            if var current = account, current.identifier == identifier || identifier.isEmpty {
                current.refreshToken = answer.refresh_token ?? current.refreshToken
                current.idToken = answer.id_token ?? current.idToken
                current.tokens[key] = tokens
                account = current
            } else {
                account = Account(
                    identifier: identifier, username: name, idToken: answer.id_token ?? "",
                    refreshToken: answer.refresh_token, tokens: [key: tokens])
            }
        }
    }

    /// The ID token's claims: base64url to base64, then `JSONSerialization`.
    static func claims(of jwt: String) throws -> [String: Any] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { throw Failure(what: "jwt") }
        var base64 = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let claims = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw Failure(what: "claims") }
        return claims
    }
}
