public import Foundation
public import NativeAuth
import Testing

/// A transport that answers from a script, in order, and records every request.
/// A request beyond the script, or to another endpoint than the script expects, fails the test.
public final class ScriptedTransport: HTTPTransport, Sendable {
    public enum Answer: Sendable {
        case response(HTTPResponse)
        case failure(URLError.Code)
    }

    private let script: LockedValue<[(endpoint: String, answer: Answer)]>
    private let received = LockedValue<[HTTPRequest]>([])

    public init(_ script: [(String, Answer)] = []) {
        self.script = LockedValue(script.map { (endpoint: $0.0, answer: $0.1) })
    }

    public func then(_ endpoint: String, _ answer: Answer) {
        script.withLock { $0.append((endpoint, answer)) }
    }

    public var requests: [HTTPRequest] { received.current }
    public var remaining: Int { script.current.count }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        received.withLock { $0.append(request) }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else {
            Issue.record("unexpected request to \(request.url.path)")
            throw URLError(.resourceUnavailable)
        }
        #expect(request.url.path.hasSuffix("/" + next.endpoint), "expected \(next.endpoint), got \(request.url.path)")
        switch next.answer {
        case .response(let response): return response
        case .failure(let code): throw URLError(code)
        }
    }
}

extension ScriptedTransport.Answer {
    public static func json(_ status: Int = 200, _ body: String, headers: [String: String] = [:]) -> Self {
        var all = ["Content-Type": "application/json; charset=utf-8"]
        all.merge(headers) { $1 }
        return .response(HTTPResponse(statusCode: status, headers: all, body: Data(body.utf8)))
    }

    public static func raw(_ status: Int, contentType: String?, _ body: String) -> Self {
        .response(
            HTTPResponse(
                statusCode: status, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: Data(body.utf8)))
    }

    public static func error(
        _ error: String, suberror: String? = nil, codes: [Int] = [], token: String? = nil, status: Int = 400,
        description: String = "test.", extra: String = ""
    ) -> Self {
        var fields = [
            "\"error\":\"\(error)\"", "\"error_description\":\"AADSTS\(codes.first ?? 0): \(description)\"",
        ]
        if let suberror { fields.append("\"suberror\":\"\(suberror)\"") }
        fields.append("\"error_codes\":[\(codes.map(String.init).joined(separator: ","))]")
        if let token { fields.append("\"continuation_token\":\"\(token)\"") }
        if !extra.isEmpty { fields.append(extra) }
        return .json(status, "{" + fields.joined(separator: ",") + "}")
    }

    public static func token(_ token: String) -> Self { .json(200, "{\"continuation_token\":\"\(token)\"}") }

    public static func oob(_ token: String, length: Int = 8) -> Self {
        .json(
            200,
            "{\"continuation_token\":\"\(token)\",\"challenge_type\":\"oob\",\"binding_method\":\"prompt\",\"challenge_channel\":\"email\",\"challenge_target_label\":\"a***e@ex**e.com\",\"code_length\":\(length),\"interval\":300}"
        )
    }

    public static func password(_ token: String) -> Self {
        .json(200, "{\"continuation_token\":\"\(token)\",\"challenge_type\":\"password\"}")
    }

    public static func redirect(_ reason: String = "Native auth is not supported for this flow.") -> Self {
        .json(200, "{\"challenge_type\":\"redirect\",\"redirect_reason\":\"\(reason)\"}")
    }

    public static func tokens(
        access: String = "access-1", refresh: String? = "refresh-1", idToken: String = TestTokens.idToken(),
        expiresIn: Int = 3600, scope: String = "openid profile offline_access"
    ) -> Self {
        var fields = [
            "\"token_type\":\"Bearer\"", "\"scope\":\"\(scope)\"", "\"expires_in\":\(expiresIn)",
            "\"access_token\":\"\(access)\"", "\"id_token\":\"\(idToken)\"",
        ]
        if let refresh { fields.append("\"refresh_token\":\"\(refresh)\"") }
        return .json(200, "{" + fields.joined(separator: ",") + "}")
    }
}

extension ScriptedTransport {
    /// Scripts a password sign-in of ada@example.com (initiate, challenge, then `tokens` from the
    /// token endpoint) and runs it on `client`.
    public func signIn(_ client: NativeAuthClient, tokens: Answer = .tokens()) async throws -> UserAccountResult {
        then("initiate", .token("ct1"))
        then("challenge", .password("ct2"))
        then("token", tokens)
        let result = try await client.signIn(SignInParameters(username: "ada@example.com", password: "pw"))
        guard case .completed(let account) = result else { throw TestFailure("expected completed, got \(result)") }
        return account
    }
}

public enum TestTokens: Sendable {
    public static func idToken(
        username: String = "ada@example.com", oid: String = "00000000-0000-0000-0000-0000000000a1",
        extra: String = ""
    ) -> String {
        let header = base64URL(Data("{\"alg\":\"none\",\"typ\":\"JWT\"}".utf8))
        var payload =
            "{\"sub\":\"sub-\(oid)\",\"oid\":\"\(oid)\",\"tid\":\"tenant-1\",\"preferred_username\":\"\(username)\",\"name\":\"Ada\",\"email\":\"\(username)\",\"iat\":1800000000,\"exp\":1800003600"
        if !extra.isEmpty { payload += "," + extra }
        payload += "}"
        return header + "." + base64URL(Data(payload.utf8)) + "."
    }
}

/// Decodes a form body into ordered pairs, for assertions.
public func formFields(_ request: HTTPRequest) -> [String] {
    guard let body = request.body, let text = String(data: body, encoding: .utf8), !text.isEmpty else { return [] }
    return text.split(separator: "&").map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        return parts.joined(separator: "=")
    }
}

public func testConfiguration(
    challengeTypes: Set<ChallengeType> = [.oob, .password], capabilities: Set<Capability> = [],
    logger: (any NativeAuthLogger)? = nil
) -> NativeAuthConfiguration {
    // The test authority is fixed and valid; a failure here is a test bug.
    var configuration = try? NativeAuthConfiguration(
        clientId: "client-1", tenantSubdomain: "contoso", challengeTypes: challengeTypes,
        capabilities: capabilities)
    configuration?.logger = logger
    // Waits (retry pauses, polling) return at once: tests never sleep.
    configuration?.clock = TestClock()
    // The transport answers in process: only a hang may reach the request deadline.
    configuration?.requestTimeout = TestBounds.requestDeadline
    return configuration ?? { preconditionFailure("test configuration") }()
}

/// `data` in base64url without padding (RFC 4648 §5), as JWTs carry their parts.
public func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
