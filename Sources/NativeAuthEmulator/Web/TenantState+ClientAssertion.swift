import AuthCrypto
import Foundation
import NativeAuth

/// The `private_key_jwt` client authentication method (OpenID Connect Core §9; RFC 7523 §2.2, §3)
/// at the web endpoints, when ``EmulatorSettings/clientAssertionKey`` holds the client's key.
///
/// Checked at the token endpoint for the grants of browser sign-ins (a code of the authorization
/// endpoint or of the authorization challenge endpoint, the refresh of a refresh token that signs
/// ID tokens), at the pushed authorization request endpoint and at the authorization challenge
/// endpoint. Native authentication's grants are a public client's, as Entra's: not checked.
///
/// The assertion must be one JWS (RFC 7515 §7.1) with an asymmetric `alg` the key is for, signed by
/// the key; `iss` and `sub` the client id (RFC 7523 §3 items 1 and 2); `aud` the issuer, the token
/// endpoint's URL or, at the pushed authorization request endpoint, its own URL (RFC 9126 §2),
/// as one string or in an array (item 3); `exp` in the future (item 4), at most
/// ``clientAssertionMaximumLifetime`` away; `nbf` and `iat`, when present, not in the future
/// (items 5 and 6, within ``clientAssertionLeeway``); and a `jti` the tenant has not seen before its `exp`
/// (item 7). A refusal is `invalid_client` with `401` (RFC 7523 §3.2 and RFC 6749 §5.2); its
/// description says which check failed and never repeats the assertion.
extension TenantState {
    /// `client_assertion_type` of a JWT (RFC 7523 §2.2).
    static let clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How far `iat` may be ahead of the tenant's clock, and `exp` behind it.
    static let clientAssertionLeeway: TimeInterval = 5
    /// How far in the future `exp` may be: a longer-lived assertion is refused, so that the
    /// tenant's memory of used `jti` values stays bounded.
    static let clientAssertionMaximumLifetime: TimeInterval = 3_600
    /// The longest assertion read.
    static let clientAssertionMaximumLength = 16_384

    /// Checks the client assertion of `form`, sent to `endpoint`, and remembers its `jti`. Does
    /// nothing when ``EmulatorSettings/clientAssertionKey`` is not set.
    mutating func authenticateClient(_ form: FormBody, endpoint: EmulatorEndpoint, call: Call) throws(APIError) {
        guard let registered = settings.clientAssertionKey else { return }
        guard form["client_assertion_type"] == Self.clientAssertionType else {
            throw .clientAssertion(
                "The client authenticates with private_key_jwt: send client_assertion_type "
                    + "\(Self.clientAssertionType) and a client_assertion.")
        }
        guard let assertion = form["client_assertion"], !assertion.isEmpty else {
            throw .clientAssertion("The request has no client_assertion.")
        }
        guard assertion.utf8.count <= Self.clientAssertionMaximumLength else {
            throw .clientAssertion("The client_assertion is longer than \(Self.clientAssertionMaximumLength) bytes.")
        }
        let segments = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let signature = DPoPProofChecker.base64URL(segments[2]), !signature.isEmpty,
            let header = Self.assertionObject(segments[0]), let claims = Self.assertionObject(segments[1])
        else { throw .clientAssertion("The client_assertion is not a signed JWT (three base64url parts).") }
        guard case .string(let algorithm)? = header["alg"], DPoPPublicKey.supportedAlgorithms.contains(algorithm)
        else {
            throw .clientAssertion(
                "The client_assertion's alg is not one the tenant verifies ("
                    + DPoPPublicKey.supportedAlgorithms.joined(separator: ", ") + ").")
        }
        guard header["crit"] == nil else { throw .clientAssertion("The client_assertion has a crit header.") }
        let key: DPoPPublicKey
        do {
            var jwk = JSONObject()
            for (name, value) in registered.sorted(by: { $0.key < $1.key }) { jwk[name] = .string(value) }
            key = try DPoPPublicKey(jwk: jwk, algorithm: algorithm)
        } catch {
            throw .clientAssertion("The client's registered key is not a key of the assertion's alg, \(algorithm).")
        }
        let input = Array(assertion.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        guard key.verifies(Array(signature), of: input) else {
            throw .clientAssertion("The client_assertion's signature does not verify with the client's key.")
        }
        try checkAssertionClaims(claims, endpoint: endpoint, call: call)
    }

    /// RFC 7523 §3's claims, and the replay check.
    private mutating func checkAssertionClaims(_ claims: JSONObject, endpoint: EmulatorEndpoint, call: Call)
        throws(APIError)
    {
        let clientId = environment.clientId
        guard claims["iss"] == .string(clientId), claims["sub"] == .string(clientId) else {
            throw .clientAssertion("The client_assertion's iss and sub must both be the client id.")
        }
        var audiences = [issuer, webURL(.token, call)]
        if endpoint == .pushedAuthorizationRequest { audiences.append(webURL(.pushedAuthorizationRequest, call)) }
        let named: [String]
        switch claims["aud"] {
        case .string(let one)?: named = [one]
        case .array(let many)?: named = many.compactMap { if case .string(let one) = $0 { one } else { nil } }
        default: named = []
        }
        guard named.contains(where: audiences.contains) else {
            throw .clientAssertion("The client_assertion's aud is neither the issuer nor this endpoint's URL.")
        }
        let now = call.now.timeIntervalSince1970
        guard let expires = Self.seconds(claims["exp"]) else {
            throw .clientAssertion("The client_assertion has no numeric exp.")
        }
        guard expires + Self.clientAssertionLeeway > now else {
            throw .clientAssertion("The client_assertion has expired.")
        }
        guard expires - now <= Self.clientAssertionMaximumLifetime else {
            throw .clientAssertion(
                "The client_assertion's exp is more than \(Int(Self.clientAssertionMaximumLifetime)) seconds away.")
        }
        for claim in ["iat", "nbf"] where claims[claim] != nil {
            guard let time = Self.seconds(claims[claim]), time <= now + Self.clientAssertionLeeway else {
                throw .clientAssertion("The client_assertion's \(claim) is not a time in the past.")
            }
        }
        guard case .string(let jti)? = claims["jti"], !jti.isEmpty else {
            throw .clientAssertion("The client_assertion has no jti.")
        }
        web.usedAssertions = web.usedAssertions.filter {
            $0.value.timeIntervalSince1970 + Self.clientAssertionLeeway > now
        }
        guard web.usedAssertions[jti] == nil else {
            throw .clientAssertion("The client_assertion's jti was used before.")
        }
        web.usedAssertions[jti] = Date(timeIntervalSince1970: expires)
    }

    private static func seconds(_ value: JSON?) -> TimeInterval? {
        switch value {
        case .integer(let seconds)?: TimeInterval(seconds)
        case .double(let seconds)? where seconds.isFinite: seconds
        default: nil
        }
    }

    private static func assertionObject(_ segment: Substring) -> JSONObject? {
        guard let data = DPoPProofChecker.base64URL(segment), let text = String(data: data, encoding: .utf8),
            case .object(let object)? = try? JSONParser.parse(text)
        else { return nil }
        return object
    }
}

extension APIError {
    /// A client assertion missing or refused: `invalid_client` with `401` (RFC 6749 §5.2; RFC 7523
    /// §3.2). Entra's AADSTS codes for these are not documented one by one: none is sent.
    static func clientAssertion(_ reason: String) -> APIError {
        APIError(forced: "invalid_client", suberror: nil, codes: [], description: reason, status: 401)
    }
}
