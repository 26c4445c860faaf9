import Foundation
import NativeAuth
import Testing

@testable import AuthCrypto
@testable import NativeAuthEmulator

/// An RSA key that signs DPoP proofs in the tests (RS256), with its public JWK and thumbprint worked
/// out here, apart from the emulator's checks.
///
/// `a` is the emulator's published signing key; `b` a second published test key (made with
/// `openssl genrsa 2048`), signed with its private exponent directly. Neither is a secret.
struct ProofKey: Sendable {
    let modulus: [UInt8]
    private let privateExponent: BigUInt?

    static let a = ProofKey(modulus: EmulatorSigningKey.test.modulusBytes, privateExponent: nil)
    static let b = ProofKey(
        modulus: [
            "86ebcb328c356e1ed387e19e63c9c619540ca0ad8b5d4673f973454c17f37980f17f5fb028092beb70c02e0c0c1bf0a9",
            "5152d5798b287de8bf2d56bea45481cf15cea9f8cef278d8dd00f34130da76146dc788ec3322b8751d1579000dfb20be",
            "d1a6cae0313ddb0062630eb49a15c3311172172162618443a3db2f77074eabf5f9c7c791393dc530578d1decaa3a5830",
            "f83a24d119ae4b9c1d44946ed6faf1ace497a2b110f1eb9efb60fec35757dc957f78c4e1ce5ce808487ae036b62577de",
            "f2c120faddbfb5529b06f253af21d5b6b522af2a4ed36a26a034a3803133b384836959636cdcc9fe1e4c76f562fcffd1",
            "969bc34a322613702d56dba9a10e50bf",
        ],
        privateExponent: [
            "33ed36344b201934c606caffd1ba0b831e050a2620b812707a36321a7a315bb713bb0911dc26c37f86d2802664d6b006",
            "0a658e018c5c563128bb0362b60e4c336e5a2eb2b2bb41657d916b0dd1069361836ac338dce96502b5e1d8c2fb9e8658",
            "ca899e1530fe74762e679f7644c3516f661e79e6805db5b0eeb4620d3683c1cc87768e0f15aff6c745220773cef6bd7c",
            "a1ee6163158ad36d09b1dd3c78ad25141702d256f02a715abd1a3beeba2ea2c575dd9c36fe688aca86eaee4b66de7299",
            "b79993765a33269b50a1147248e665b7cb091903652161e5ab0a6fb5d963db1c2a54c608b174a6c2eae98c9f4b7ad5db",
            "bd23e7e3ca9bd8814e2f74c6681e8481",
        ]
    )

    private init(modulus: [UInt8], privateExponent: BigUInt?) {
        self.modulus = modulus
        self.privateExponent = privateExponent
    }

    private init(modulus: [String], privateExponent: [String]) {
        self.init(
            modulus: EmulatorSigningKey.bytes(modulus.joined()),
            privateExponent: BigUInt(bigEndian: EmulatorSigningKey.bytes(privateExponent.joined())))
    }

    var n: String { b64(Data(modulus)) }
    /// The public JWK: `kty`, `n`, `e` (65537).
    var jwk: [String: Any] { ["kty": "RSA", "n": n, "e": "AQAB"] }
    /// RFC 7638 §3.1's form, written out by hand.
    var thumbprint: String {
        b64(Data(SHA256.hash(Array(#"{"e":"AQAB","kty":"RSA","n":"\#(n)"}"#.utf8))))
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `input`.
    func sign(_ input: [UInt8]) -> [UInt8] {
        guard let exponent = privateExponent else { return EmulatorSigningKey.test.sign(input) ?? [] }
        guard let encoded = RSASignature.expectedEncoding(digest: SHA256.hash(input), length: modulus.count),
            let context = MontgomeryModulus(BigUInt(bigEndian: modulus)),
            let signature = context.power(BigUInt(bigEndian: encoded), exponent)
        else { return [] }
        return signature.bigEndianBytes(count: modulus.count) ?? []
    }
}

/// Base64url without padding, written apart from the emulator's.
func b64(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// JSON text of `object`, sorted keys, by `JSONSerialization`.
func jsonText(_ object: [String: Any]) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
}

/// `ath`: base64url(SHA-256(token)) (RFC 9449 §4.2).
func accessTokenHash(_ token: String) -> String { b64(Data(SHA256.hash(Array(token.utf8)))) }

/// A DPoP proof made by hand: the header and claims of RFC 9449 §4.2, each of which a test may
/// change or remove before it is signed.
struct Proof {
    var key = ProofKey.a
    var header: [String: Any]
    var claims: [String: Any]

    /// A valid proof for `method` and `url` at `issuedAt`, with a fresh `jti`.
    init(
        _ method: String, _ url: String, at issuedAt: Date, key: ProofKey = .a, nonce: String? = nil,
        accessToken: String? = nil
    ) {
        self.key = key
        header = ["typ": "dpop+jwt", "alg": "RS256", "jwk": key.jwk]
        claims = [
            "jti": UUID().uuidString, "htm": method, "htu": url, "iat": Int(issuedAt.timeIntervalSince1970),
        ]
        if let nonce { claims["nonce"] = nonce }
        if let accessToken { claims["ath"] = accessTokenHash(accessToken) }
    }

    /// The compact JWS.
    var jwt: String {
        let input = b64(Data(jsonText(header).utf8)) + "." + b64(Data(jsonText(claims).utf8))
        return input + "." + b64(Data(key.sign(Array(input.utf8))))
    }
}

/// A tenant with DPoP settings, its browser sign-in, and the requests of a DPoP client: the token
/// endpoint and the protected resource, with or without a proof.
struct DPoPHarness {
    let web: WebHarness
    var tenant: EmulatedTenant { web.tenant }
    var clock: ManualClock { web.clock }
    var now: Date { clock.now() }
    /// The origin requests go to: the tenant's own in process, the server's over HTTP.
    let origin: String
    let transport: any HTTPTransport

    init(_ mode: EmulatorSettings.DPoPMode = .offered, configure: (inout EmulatorSettings) -> Void = { _ in }) {
        let web = WebHarness {
            $0.dpop = mode
            configure(&$0)
        }
        self.init(web: web, origin: "https://contoso.ciamlogin.com", transport: web.tenant)
    }

    init(web: WebHarness, origin: String, transport: any HTTPTransport) {
        self.web = web
        self.origin = origin
        self.transport = transport
    }

    /// The token endpoint, on the tenant-id path as the discovery document names it.
    var tokenURL: String { "\(origin)/\(tenant.tenantId)/oauth2/v2.0/token" }
    /// The protected resource, under the authority.
    var resourceURL: String { "\(origin)/contoso.onmicrosoft.com/emulator/me" }

    /// A valid proof of a token request, made now.
    func tokenProof(key: ProofKey = .a, nonce: String? = nil) -> Proof {
        Proof("POST", tokenURL, at: now, key: key, nonce: nonce)
    }

    /// A valid proof of a resource request with `token`, made now.
    func resourceProof(_ token: String, key: ProofKey = .a, nonce: String? = nil) -> Proof {
        Proof("GET", resourceURL, at: now, key: key, nonce: nonce, accessToken: token)
    }

    /// An authorization code for Ada, from the sign-in page in process.
    func code() async throws -> String {
        try #require(try await web.signIn()["code"])
    }

    /// Posts `fields` to the token endpoint with `headers` (a `DPoP` header, say).
    func token(_ fields: [(String, String)], headers: [String: String] = [:]) async throws -> Reply {
        let url = try #require(URL(string: tokenURL))
        var all = ["Content-Type": "application/x-www-form-urlencoded"]
        all.merge(headers) { _, new in new }
        let body = formEncode([("client_id", tenant.clientId)] + fields)
        return try Reply(
            await transport.send(HTTPRequest(method: "POST", url: url, headers: all, body: Data(body.utf8))))
    }

    /// Redeems `code` with `proof` (a JWT for the `DPoP` header), or with none.
    func redeem(_ code: String, proof: String?) async throws -> Reply {
        try await token(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", WebHarness.redirect),
                ("code_verifier", WebHarness.verifier),
            ], headers: proof.map { ["DPoP": $0] } ?? [:])
    }

    /// Refreshes `refreshToken` with `proof`, or with none.
    func refresh(_ refreshToken: String, proof: String?) async throws -> Reply {
        try await token(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("scope", Fixture.scopes)],
            headers: proof.map { ["DPoP": $0] } ?? [:])
    }

    /// Signs in and redeems the code with a valid proof of `key`: bound tokens.
    func boundTokens(key: ProofKey = .a) async throws -> Reply {
        let reply = try await redeem(try await code(), proof: tokenProof(key: key).jwt)
        try #require(reply.status == 200, "\(reply.text)")
        return reply
    }

    /// GETs the protected resource with `authorization` and `headers`.
    func me(authorization: String?, headers: [String: String] = [:]) async throws -> Reply {
        let url = try #require(URL(string: resourceURL))
        var all = headers
        if let authorization { all["Authorization"] = authorization }
        return try Reply(await transport.send(HTTPRequest(method: "GET", url: url, headers: all)))
    }

    /// GETs the protected resource with `token` under the DPoP scheme and `proof`.
    func me(dpop token: String, proof: String?) async throws -> Reply {
        try await me(authorization: "DPoP \(token)", headers: proof.map { ["DPoP": $0] } ?? [:])
    }
}

extension Reply {
    /// The claims of the access token of a token answer (an unsigned JWT).
    var accessTokenClaims: [String: Any] {
        let parts = self["access_token"].split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return [:] }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// The `cnf.jkt` of the access token, when it has one.
    var boundKey: String? { (accessTokenClaims["cnf"] as? [String: Any])?["jkt"] as? String }

    /// The answer's `WWW-Authenticate` challenge.
    var challenge: String { response.header("WWW-Authenticate") ?? "" }
}
