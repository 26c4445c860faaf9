import Foundation
import NativeAuth
import NativeAuthEmulator
import Testing

/// Raw Native Auth V2 requests to a harness tenant, read with JSONSerialization (never with the
/// emulator's or the SDK's code).
extension Harness {
    /// `https://{sub}.ciamlogin.com`
    var origin: String { "https://\(tenant.authority.host ?? "")" }

    /// POSTs a form to `authorize-challenge` as it is given (no `client_id` added).
    func authorizeChallenge(_ fields: [(String, String)], contentType: String = "application/x-www-form-urlencoded")
        async throws -> Reply
    {
        let request = HTTPRequest(
            method: "POST", url: tenant.url(for: .authorizeChallenge),
            headers: ["Content-Type": contentType, "client-request-id": "corr-v2"],
            body: Data(formEncode(fields).utf8))
        return try await Reply(tenant.send(request))
    }

    /// Starts an authorization: the 401 answer.
    func startAuthorization() async throws -> Reply {
        let reply = try await authorizeChallenge([("client_id", clientId)])
        try #require(reply.status == 401, "authorize-challenge: \(reply.text)")
        return reply
    }

    /// POSTs `body` (raw text) to `href`, resolved on the tenant's origin as the service means it;
    /// with `grafted`, the part from `/api/` on is put after the authority's path instead, as the
    /// MSAL clients do.
    func follow(
        _ href: String, raw body: String, contentType: String? = "application/json", grafted: Bool = false
    ) async throws -> Reply {
        let target: String
        if grafted, let range = href.range(of: "/api/") {
            target = tenant.authority.absoluteString + href[range.lowerBound...]
        } else {
            target = origin + href
        }
        let url = try #require(URL(string: target))
        var headers = ["Accept": "application/json", "client-request-id": "corr-v2"]
        if let contentType { headers["Content-Type"] = contentType }
        return try await Reply(
            tenant.send(HTTPRequest(method: "POST", url: url, headers: headers, body: Data(body.utf8))))
    }

    /// POSTs a JSON object of strings to `href`.
    func follow(_ href: String, _ fields: [String: String], grafted: Bool = false) async throws -> Reply {
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        return try await follow(href, raw: String(decoding: data, as: UTF8.self), grafted: grafted)
    }

    /// authorize-challenge, then `signin/start` for `username`: the journey's first answer.
    func v2SignInStart(_ username: String, grafted: Bool = false) async throws -> Reply {
        let start = try await startAuthorization()
        return try await follow(
            start["sign_in"], ["username": username, "continuationToken": start["continuation_token"]],
            grafted: grafted)
    }

    /// Resumes authorization with `token` and returns the code.
    func resume(_ token: String) async throws -> String {
        let reply = try await authorizeChallenge([("continuation_token", token)])
        try #require(reply.status == 200, "resume: \(reply.text)")
        return reply["code"]
    }

    /// Redeems a V2 code as the MSAL clients do.
    func redeem(_ code: String, scope: String? = Fixture.scopes) async throws -> Reply {
        var fields: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("client_info", "true"),
        ]
        if let scope { fields.append(("scope", scope)) }
        return try await postPairs(.token, fields)
    }

    /// A whole email-code sign-in of `username` (a passwordless user): the `continue` answer.
    func v2CodeSignIn(_ username: String) async throws -> Reply {
        let start = try await v2SignInStart(username)
        let method = try #require(start.methods.first)
        let challenge = try await follow(
            method.link("challenge"), ["continuationToken": start["continuationToken"]])
        let code = try #require(tenant.lastCode(sentTo: username))
        return try await follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code])
    }
}

extension Reply {
    /// `_links.{relation}.href`, or "".
    func link(_ relation: String) -> String { json.link(relation) }

    /// `_embedded.methods`.
    var methods: [[String: Any]] {
        ((json["_embedded"] as? [String: Any])?["methods"] as? [[String: Any]]) ?? []
    }

    /// `challengeContext.authenticationFactor`.
    var factor: String? { (json["challengeContext"] as? [String: Any])?["authenticationFactor"] as? String }

    /// The nested HAL error object.
    var halError: [String: Any] { json["error"] as? [String: Any] ?? [:] }
    var innerErrorCode: String? { (halError["innerError"] as? [String: Any])?["code"] as? String }
}

extension Dictionary where Key == String, Value == Any {
    /// `_links.{relation}.href`, or "".
    func link(_ relation: String) -> String {
        ((self["_links"] as? [String: Any])?[relation] as? [String: Any])?["href"] as? String ?? ""
    }
}

/// Asserts a HAL error answer: status 400, `error.code`, `innerError.code` and the `AADSTS` number
/// at the start of `message`, with the trace fields.
func expectHALError(
    _ reply: Reply, _ code: String, inner: String? = nil, aadsts: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply.status == 400, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.halError["code"] as? String == code, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.innerErrorCode == inner, "\(reply.text)", sourceLocation: sourceLocation)
    let message = reply.halError["message"] as? String ?? ""
    #expect(message.hasPrefix("AADSTS\(aadsts): "), "\(reply.text)", sourceLocation: sourceLocation)
    for key in ["timestamp", "traceId", "correlationId"] {
        #expect(reply.halError[key] is String, "no \(key): \(reply.text)", sourceLocation: sourceLocation)
    }
}
