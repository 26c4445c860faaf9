import Foundation
import NativeAuth

/// The protected resource `GET emulator/me`: a stand-in for an app's API that accepts the access
/// tokens the tenant issues, until they expire on the tenant's clock.
///
/// Like a real API, it validates an access token by what the token says rather than by looking it
/// up: the token is an unsigned JWT whose `aud` must be the tenant's client id, `iss` and `tid` the
/// tenant's, `exp` still ahead on the tenant's clock, and whose `preferred_username` and `oid` must
/// name a user the tenant has now. The tenant keeps no access tokens, so one issued before a
/// ``EmulatedTenant/snapshot()`` is still accepted after a ``EmulatedTenant/restore(from:)``, in this
/// process or another. Revoking works on refresh tokens only: an access token stays valid until it
/// expires, unless its user is removed. The tokens are unsigned, so a JWT built by hand with the
/// right claims is accepted too; the emulator is a test double, not a security boundary.
///
/// With ``EmulatorSettings/dpop`` on it also takes `Authorization: DPoP {token}` with a proof
/// (RFC 9449 §7.1) for a token bound to the proof's key (the token's `cnf.jkt`, §6.1). A bound
/// token is refused as a Bearer token whatever the setting (§7.2).
///
/// After ``EmulatedTenant/requireStepUp(acrValues:maxAge:)`` it also refuses a token whose `acr`
/// or `auth_time` does not meet the requirement, with RFC 9470's `insufficient_user_authentication`
/// challenge (§3) on the token's scheme.
extension TenantState {
    /// How a request presented its access token.
    enum Scheme {
        case bearer, dpop
    }

    mutating func protectedResource(_ call: Call) -> HTTPResponse {
        let dpopOn = settings.dpop != .off
        let authorization = call.request.header("Authorization")?.trimmingCharacters(in: .whitespaces) ?? ""
        let parts = authorization.split(separator: " ", maxSplits: 1)
        let scheme: Scheme
        switch parts.first?.lowercased() {
        case "bearer"? where parts.count == 2: scheme = .bearer
        case "dpop"? where parts.count == 2 && dpopOn: scheme = .dpop
        default:
            return unauthorized(
                call, .bearer, error: "invalid_request",
                description: dpopOn ? "The request has no access token." : "The request has no bearer access token.",
                plainChallenge: true)
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard let validated = validAccessToken(token) else {
            return unauthorized(call, scheme, error: "invalid_token", description: "The access token is invalid")
        }
        guard call.now < validated.expiresAt else {
            return unauthorized(call, scheme, error: "invalid_token", description: "The access token is expired")
        }
        if scheme == .bearer, validated.dpopKey != nil {
            // RFC 9449 §7.2: a DPoP-bound token sent as a Bearer token is refused.
            return unauthorized(
                call, dpopOn ? .dpop : .bearer, error: "invalid_token",
                description: "The access token is bound to a DPoP key: present it with the DPoP scheme and a proof")
        }
        if scheme == .dpop {
            let proof: CheckedDPoPProof?
            do throws(DPoPRefusal) {
                proof = try dpopProof(of: call, accessToken: token)
            } catch {
                switch error {
                case .invalid(let reason):
                    return unauthorized(call, .dpop, error: "invalid_dpop_proof", description: reason)
                case .useNonce:
                    return unauthorized(
                        call, .dpop, error: "use_dpop_nonce",
                        description: "Resource server requires nonce in DPoP proof")
                }
            }
            guard let proof else {
                return unauthorized(
                    call, .dpop, error: "invalid_dpop_proof", description: "The request has no DPoP proof")
            }
            // RFC 9449 §4.3 step 12, second half: the token is bound to the proof's key.
            guard let bound = validated.dpopKey else {
                return unauthorized(
                    call, .dpop, error: "invalid_token",
                    description: "The access token is not bound to a DPoP key: present it as a Bearer token")
            }
            guard bound == proof.thumbprint else {
                return unauthorized(
                    call, .dpop, error: "invalid_token",
                    description: "Invalid DPoP key binding: the proof's key is not the access token's")
            }
        }
        if let refusal = stepUpRefusal(acr: validated.acr, authTime: validated.authTime, now: call.now) {
            return unauthorized(
                call, scheme, error: "insufficient_user_authentication", description: refusal.description,
                parameters: refusal.parameters)
        }
        let user = validated.user
        let body: JSONObject = ["username": .string(user.username), "oid": .string(objectId(of: user))]
        return jsonResponse(status: 200, body: body, call: call)
    }

    /// The user, expiry, DPoP binding (`cnf.jkt`), `auth_time` and `acr` of `token` when it is an
    /// access token of this tenant for a user it has now (expired or not), or `nil`.
    func validAccessToken(_ token: String) -> (
        user: EmulatedUser, expiresAt: Date, dpopKey: String?, authTime: Date?, acr: String?
    )? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, segments[2].isEmpty,
            case .object(let header)? = Self.jsonSegment(segments[0]), header["alg"] == "none",
            case .object(let claims)? = Self.jsonSegment(segments[1]),
            claims["aud"] == .string(environment.clientId),
            claims["iss"] == .string(issuer),
            claims["tid"] == .string(environment.tenantId),
            let username = claims["preferred_username"]?.stringValue,
            let user = user(named: username),
            claims["oid"] == .string(objectId(of: user))
        else { return nil }
        let expiry: TimeInterval
        switch claims["exp"] {
        case .integer(let seconds)?: expiry = TimeInterval(seconds)
        case .double(let seconds)? where seconds.isFinite: expiry = seconds
        default: return nil
        }
        var dpopKey: String?
        switch claims["cnf"] {
        case nil: dpopKey = nil
        case .object(let confirmation)?:
            // RFC 9449 §6.1: `jkt`, a string; a `cnf` without one binds to nothing the tenant knows.
            guard case .string(let thumbprint)? = confirmation["jkt"] else { return nil }
            dpopKey = thumbprint
        default: return nil
        }
        var authTime: Date?
        if case .integer(let seconds)? = claims["auth_time"] {
            authTime = Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        return (user, Date(timeIntervalSince1970: expiry), dpopKey, authTime, claims["acr"]?.stringValue)
    }

    /// The JSON value in one base64url segment of a JWT, or `nil`.
    private static func jsonSegment(_ segment: Substring) -> JSON? {
        guard let data = Encoding.base64URLDecode(String(segment)),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        return try? JSONParser.parse(text)
    }

    /// A `401` with `error` in the body and a `WWW-Authenticate` challenge of `scheme` (RFC 6750
    /// §3, RFC 9449 §7.1). With DPoP on, a Bearer challenge is followed by a DPoP one naming the
    /// algorithms (`algs`, §7.1), so the client knows both schemes are taken; `plainChallenge`
    /// leaves out the description, for a request that sent no token; `parameters` (each with its
    /// leading comma) follow the description.
    private func unauthorized(
        _ call: Call, _ scheme: Scheme, error: String, description: String, plainChallenge: Bool = false,
        parameters: String = ""
    ) -> HTTPResponse {
        let algorithms = "algs=\"" + DPoPPublicKey.supportedAlgorithms.joined(separator: " ") + "\""
        let details =
            plainChallenge
            ? "error=\"\(error)\"" : "error=\"\(error)\", error_description=\"\(description)\"" + parameters
        let challenge: String
        switch scheme {
        case .bearer: challenge = "Bearer " + details + (settings.dpop != .off ? ", DPoP " + algorithms : "")
        case .dpop: challenge = "DPoP " + details + ", " + algorithms
        }
        var headers = headers(now: call.now, correlationId: call.correlationId)
        headers["WWW-Authenticate"] = challenge
        let body: JSONObject = ["error": .string(error), "error_description": .string(description)]
        return HTTPResponse(statusCode: 401, headers: headers, body: body.data)
    }
}
