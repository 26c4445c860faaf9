import Foundation
import NativeAuth
import NativeAuthEmulator
import Testing

/// The fixed start of every test clock: far from "now", so nothing depends on the wall clock.
let epoch = Date(timeIntervalSince1970: 1_800_000_000)

/// Users every test tenant starts with.
enum Fixture {
    static let ada = "ada@contoso.com"
    static let adaPassword = "Analytical-Engine-1843"
    static let grace = "grace@contoso.com"  // passwordless
    static let alan = "alan@contoso.com"  // MFA by sms and email
    static let alanPassword = "Enigma-Bombe-1940"
    static let linus = "linus@contoso.com"  // must register a method
    static let linusPassword = "Kernel-Panic-1991"
    static let scopes = "openid profile offline_access api://contoso/read"
}

/// A tenant on a manual clock with a seeded random source, and a tiny raw-HTTP client for it.
struct Harness {
    let tenant: EmulatedTenant
    let clock: ManualClock

    init(seed: UInt64 = 42, users: Bool = true, configure: (inout EmulatorSettings) -> Void = { _ in }) {
        clock = ManualClock(now: epoch)
        tenant = EmulatedTenant(clock: clock, random: SeededRandomSource(seed: seed))
        tenant.configure(configure)
        guard users else { return }
        tenant.addUser(
            EmulatedUser(
                username: Fixture.ada, password: Fixture.adaPassword,
                attributes: ["displayName": "Ada Lovelace", "givenName": "Ada", "city": "London"]))
        tenant.addUser(EmulatedUser(username: Fixture.grace))
        tenant.addUser(
            EmulatedUser(
                username: Fixture.alan, password: Fixture.alanPassword,
                mfaMethods: [
                    EmulatedAuthMethod(id: "sms-1", channel: "sms", address: "+447700900123"),
                    EmulatedAuthMethod(id: "email-1", channel: "email", address: "alan.backup@example.org"),
                ]))
        tenant.addUser(
            EmulatedUser(username: Fixture.linus, password: Fixture.linusPassword, requiresMethodRegistration: true))
    }

    var clientId: String { tenant.clientId }

    /// POSTs `fields` (client_id added first unless given) form-encoded to `endpoint`.
    func post(
        _ endpoint: EmulatorEndpoint, _ fields: KeyValuePairs<String, String>, clientId: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> Reply {
        var pairs: [(String, String)] = []
        if !fields.contains(where: { $0.key == "client_id" }) { pairs.append(("client_id", clientId ?? self.clientId)) }
        pairs += fields.map { ($0.key, $0.value) }
        var allHeaders = [
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
            "client-request-id": "00000000-1111-2222-3333-444444444444",
        ]
        allHeaders.merge(headers) { _, new in new }
        let request = HTTPRequest(
            method: "POST", url: tenant.url(for: endpoint), headers: allHeaders, body: Data(formEncode(pairs).utf8))
        return try await Reply(tenant.send(request))
    }

    /// GETs the protected resource with `token` as bearer, or without authorization.
    func me(_ token: String?) async throws -> Reply {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try await Reply(
            tenant.send(HTTPRequest(method: "GET", url: tenant.url(for: .resource), headers: headers)))
    }

    // MARK: Flows reused by many tests

    /// initiate → challenge; returns the challenge reply.
    func startSignIn(
        _ username: String, challengeTypes: String = "oob password redirect", capabilities: String? = nil
    ) async throws -> Reply {
        var fields: [(String, String)] = [("username", username), ("challenge_type", challengeTypes)]
        if let capabilities { fields.append(("capabilities", capabilities)) }
        let initiate = try await postPairs(.initiate, fields)
        try #require(initiate.status == 200, "initiate: \(initiate.text)")
        return try await post(
            .challenge, ["continuation_token": initiate["continuation_token"], "challenge_type": challengeTypes])
    }

    /// A complete password sign-in; returns the token reply.
    func signIn(_ username: String, password: String, capabilities: String? = nil) async throws -> Reply {
        let challenge = try await startSignIn(username, capabilities: capabilities)
        try #require(challenge["challenge_type"] == "password", "challenge: \(challenge.text)")
        return try await post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "password",
                "password": password, "scope": Fixture.scopes,
            ])
    }

    func postPairs(_ endpoint: EmulatorEndpoint, _ fields: [(String, String)]) async throws -> Reply {
        let request = HTTPRequest(
            method: "POST", url: tenant.url(for: endpoint),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "client-request-id": "corr-1"],
            body: Data(formEncode([("client_id", clientId)] + fields).utf8))
        return try await Reply(tenant.send(request))
    }
}

/// Percent-encodes a form the strict way: only unreserved characters stay as they are.
func formEncode(_ pairs: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics.intersection(
        CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
    allowed.insert(charactersIn: "-._~")
    func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
    return pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
}

/// A response with its JSON body decoded by JSONSerialization (independently of the emulator's writer).
struct Reply {
    let response: HTTPResponse
    let json: [String: Any]

    init(_ response: HTTPResponse) throws {
        self.response = response
        if response.body.isEmpty {
            json = [:]
        } else {
            json = (try JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
        }
    }

    var status: Int { response.statusCode }
    var text: String { String(decoding: response.body, as: UTF8.self) }

    /// A string field, or "" when absent (so it can go straight into the next request).
    subscript(key: String) -> String {
        json[key] as? String ?? ""
    }

    func has(_ key: String) -> Bool { json[key] != nil }

    var error: String? { json["error"] as? String }
    var suberror: String? { json["suberror"] as? String }
    var errorCodes: [Int] { (json["error_codes"] as? [Any])?.compactMap { ($0 as? NSNumber)?.intValue } ?? [] }
    func number(_ key: String) -> Int? { (json[key] as? NSNumber)?.intValue }
    var keys: [String] { Array(json.keys) }
}

/// Asserts an error answer: status, error, codes and suberror.
func expectError(
    _ reply: Reply, _ error: String, code: Int? = nil, suberror: String? = nil, status: Int = 400,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.error == error, "\(reply.text)", sourceLocation: sourceLocation)
    if let code { #expect(reply.errorCodes == [code], "\(reply.text)", sourceLocation: sourceLocation) }
    #expect(reply.suberror == suberror, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["error_description"].hasPrefix(code.map { "AADSTS\($0): " } ?? ""), sourceLocation: sourceLocation)
    #expect(reply.has("timestamp") && reply.has("trace_id"), sourceLocation: sourceLocation)
}

/// Asserts a 200 browser-required answer.
func expectRedirect(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == 200, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["challenge_type"] == "redirect", "\(reply.text)", sourceLocation: sourceLocation)
    #expect(!reply["redirect_reason"].isEmpty, sourceLocation: sourceLocation)
}

/// The claims of an unsigned JWT.
func claims(_ jwt: String) throws -> [String: Any] {
    let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
    try #require(parts.count == 3)
    #expect(parts[2].isEmpty)
    #expect(try segment(parts[0])["alg"] as? String == "none")
    return try segment(parts[1])
}

func segment(_ part: Substring) throws -> [String: Any] {
    var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    let data = try #require(Data(base64Encoded: base64))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}
