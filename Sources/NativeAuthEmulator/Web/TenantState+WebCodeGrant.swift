import AuthCrypto
import Foundation
import NativeAuth

/// The `authorization_code` grant of the token endpoint.
extension TenantState {
    /// `grant_type=authorization_code` on `oauth2/v2.0/token`: the code must be one the tenant
    /// issued, unused and unexpired on the tenant's clock, the `redirect_uri` the one it was issued
    /// for (none for a code of the authorization challenge endpoint, or of a browser sign-in it sent
    /// on with a `request_uri`), and the `code_verifier` must hash to its S256 challenge. The answer is the same as a
    /// native sign-in's, but its ID token is RS256-signed and carries the request's `nonce`; so
    /// are the ID tokens of every refresh of its refresh token.
    ///
    /// With ``EmulatorSettings/clientAssertionKey`` set, the client's assertion is checked before
    /// anything else (``authenticateClient(_:endpoint:call:)``).
    ///
    /// With DPoP on, the proof is checked first, before the code is spent (a client answered
    /// `use_dpop_nonce` sends the same code again with a new proof), and a valid one binds the
    /// tokens to its key (RFC 9449 §5).
    mutating func authorizationCodeGrant(_ call: Call) throws(APIError) -> JSONObject {
        try authenticateClient(call.form, endpoint: .token, call: call)
        let proof = try tokenRequestProof(call, missing: requiredProofReason)
        let code = try required("code", in: call)
        guard var issued = web.codes[code] else { throw .invalidAuthorizationCode }
        guard !issued.redeemed else { throw .authorizationCodeRedeemed }
        guard call.now < issued.expiresAt else { throw .expiredAuthorizationCode }
        let redirectURI = call.form["redirect_uri"] ?? ""
        // RFC 6749 §4.1.3: `redirect_uri` exactly when the authorization request had one.
        let expected = issued.request.redirectURIInRequest ? issued.request.redirectURI : ""
        guard redirectURI == expected else {
            throw .redirectURIMismatch(redirectURI, issued: expected)
        }
        let verifier = call.form["code_verifier"] ?? ""
        guard Self.verifier(verifier, matches: issued.request.codeChallenge) else { throw .codeVerifierMismatch }
        if let bound = issued.request.dpopKey, settings.dpop != .off {
            // RFC 9449 §10: a code asked for with `dpop_jkt` is redeemed with a proof of that key only.
            guard let proof else {
                throw .invalidDPoPProof("The code is bound to a DPoP key (dpop_jkt): send a proof made with that key.")
            }
            guard proof.thumbprint == bound else { throw .codeBoundToAnotherKey }
        }
        issued.redeemed = true
        web.codes[code] = issued
        guard let user = user(named: issued.username) else { throw .userNotFound }
        var body = issueTokens(
            for: user, scopes: issued.request.scopes, now: call.now,
            signedIDToken: SignedIDToken(nonce: issued.request.nonce), dpopKey: proof?.thumbprint,
            authentication: issued.authentication)
        if let firstParty = issued.firstParty {
            // First-Party Applications §6.1: the session goes on beyond the code, for a later
            // sign-in of the user that continues it.
            body["auth_session"] = .string(
                signedInSession(
                    for: user.username, dpopKey: proof?.thumbprint, authentication: issued.authentication,
                    replacing: firstParty.continues, now: call.now))
        }
        return body
    }

    /// RFC 7636 §4.6: 43 to 128 unreserved characters whose SHA-256, base64url-encoded, is the challenge.
    static func verifier(_ verifier: String, matches challenge: String) -> Bool {
        let unreserved = verifier.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "-._~".unicodeScalars.contains(scalar))
        }
        guard (43...128).contains(verifier.utf8.count), unreserved else { return false }
        return Encoding.base64URL(Data(SHA256.hash(Array(verifier.utf8)))) == challenge
    }
}
