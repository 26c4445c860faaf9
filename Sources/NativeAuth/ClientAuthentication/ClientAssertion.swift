import AuthCrypto
public import Foundation

/// A key that signs a ``WebAuthClient``'s client assertions: the JWTs of the `private_key_jwt`
/// client authentication method (OpenID Connect Core §9, RFC 7523 §2.2).
///
/// ``RSAClientAssertionKey`` is the SDK's own (PS256 or RS256, on every platform); an app can
/// supply another, such as a P-256 key of CryptoKit or the Secure Enclave (ES256) or a key in an
/// HSM. Implementations keep private material out of `description`, `debugDescription` and
/// `dump()`.
public protocol ClientAssertionKey: Sendable {
    /// The JWS algorithm of the assertions it signs (RFC 7518 §3.1, RFC 8037 §3.1), such as
    /// `"PS256"`, `"ES256"` or `"EdDSA"`. `none` and the HMAC algorithms are refused.
    var algorithm: String { get }
    /// The `kid` of the assertions' header (RFC 7515 §4.1.4), naming the key among those the
    /// provider holds for the client; `nil` sends none.
    var keyID: String? { get }
    /// Signs `input`, the JWS signing input (`BASE64URL(header) || '.' || BASE64URL(payload)`),
    /// and returns the JWS signature: for PS256 the RSASSA-PSS signature, for ES256 the 64-byte
    /// `R || S` (RFC 7518 §3.4), not DER.
    func sign(_ input: Data) async throws -> Data
}

extension ClientAssertionKey {
    /// No `kid`.
    public var keyID: String? { nil }
}

/// Why a ``ClientAssertionKey`` could not be made.
public enum ClientAssertionKeyError: Error, Sendable, Equatable {
    /// The algorithm is not one this key signs with.
    case unsupportedAlgorithm(String)
    /// The bytes are not a key this type reads.
    case unreadableKey
}

/// An RSA private key that signs client assertions with PS256 (RSASSA-PSS, the algorithm FAPI 2.0
/// allows for RSA) or RS256, with the SDK's own blinded, fault-checked signing.
///
/// ```swift
/// let key = try RSAClientAssertionKey(pkcs1DER: keyFromKeychain, keyID: "2024-app-key")
/// configuration.clientAuthentication = .privateKeyJWT(PrivateKeyJWT(key: key))
/// ```
///
/// Its description names the algorithm, the size and the `kid`; never a private member.
public struct RSAClientAssertionKey: ClientAssertionKey, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The private key, behind one reference with the algorithm and the key id: the value is one
    /// pointer to copy, and fits in an existential without a box of its own.
    var key: RSAPrivateKey { held.key }
    private let held: Held
    /// `PS256` (the default) or `RS256`.
    public var algorithm: String { held.algorithm }
    /// The `kid` of the assertions' header; `nil` sends none.
    public var keyID: String? { held.keyID }

    /// The key in PKCS #1 DER (RFC 8017 appendix A.1.2, the body of a PEM block
    /// `BEGIN RSA PRIVATE KEY`).
    ///
    /// - Throws: ``ClientAssertionKeyError/unsupportedAlgorithm(_:)`` for an algorithm other than
    ///   `PS256` and `RS256`; ``ClientAssertionKeyError/unreadableKey`` for bytes that are not a
    ///   two-prime RSA key whose members belong together.
    public init(pkcs1DER: Data, algorithm: String = "PS256", keyID: String? = nil) throws(ClientAssertionKeyError) {
        guard Self.algorithms.contains(algorithm) else { throw .unsupportedAlgorithm(algorithm) }
        do {
            held = Held(try RSAPrivateKey(pkcs1DER: pkcs1DER), algorithm, keyID)
        } catch {
            throw .unreadableKey
        }
    }

    /// A new key of `bits` bits (2048 to 4096), made with the system's secure random numbers. Keep
    /// its ``pkcs1DER`` as a secret to use it again, and register its ``publicJWK`` with the
    /// provider.
    public static func generate(bits: Int = 2048, algorithm: String = "PS256", keyID: String? = nil)
        throws(ClientAssertionKeyError) -> RSAClientAssertionKey
    {
        guard algorithms.contains(algorithm) else { throw .unsupportedAlgorithm(algorithm) }
        do {
            return RSAClientAssertionKey(
                key: try RSAPrivateKey.generate(bits: bits), algorithm: algorithm, keyID: keyID)
        } catch {
            throw .unreadableKey
        }
    }

    private init(key: RSAPrivateKey, algorithm: String, keyID: String?) {
        held = Held(key, algorithm, keyID)
    }

    private final class Held: Sendable {
        let key: RSAPrivateKey
        let algorithm: String
        let keyID: String?

        init(_ key: RSAPrivateKey, _ algorithm: String, _ keyID: String?) {
            self.key = key
            self.algorithm = algorithm
            self.keyID = keyID
        }
    }

    static let algorithms = ["PS256", "RS256"]

    /// The same key, signing with `algorithm` (`PS256` or `RS256`).
    func signing(with algorithm: String) -> RSAClientAssertionKey {
        RSAClientAssertionKey(key: key, algorithm: algorithm, keyID: keyID)
    }

    /// The private key in PKCS #1 DER, to keep as a secret (in the keychain, like a refresh token).
    public var pkcs1DER: Data { Data(key.pkcs1DER) }

    /// The public key as a JSON Web Key (RFC 7517 §4, RFC 7518 §6.3.1): `kty`, `n`, `e`, with
    /// `alg`, `use` `sig` and `kid` when there is one. What the provider is given to check the
    /// assertions, in the client's `jwks` (RFC 7591 §2). Never a private member.
    public var publicJWK: [String: String] {
        var jwk = [
            "kty": "RSA", "n": Base64URL.encode(key.publicKey.modulusBytes),
            "e": Base64URL.encode(key.publicKey.exponentBytes), "alg": algorithm, "use": "sig",
        ]
        if let keyID { jwk["kid"] = keyID }
        return jwk
    }

    /// The RSASSA-PSS (PS256, its salt from the secure random generator) or RSASSA-PKCS1-v1_5
    /// (RS256) signature of `input`, checked with the public key before it is returned.
    public func sign(_ input: Data) async throws -> Data {
        Data(algorithm == "PS256" ? try key.signPSSSHA256(input) : try key.signSHA256(input))
    }

    /// The algorithm, the size and the `kid`.
    public var description: String {
        "RSAClientAssertionKey(\(algorithm), \(key.publicKey.modulusBitWidth) bits"
            + (keyID.map { ", kid: \($0)" } ?? "") + ")"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Only the description, so that `dump()` shows no private member.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// Which value a client assertion's `aud` holds.
public enum ClientAssertionAudience: Sendable, Equatable {
    /// The provider's issuer identifier, as one string (the default): what FAPI 2.0's Security
    /// Profile (§5.3.2.1) asks of clients, and the one value RFC 9126 §2 says a provider takes at
    /// its pushed authorization request endpoint as well as at its token endpoint.
    case issuer
    /// The token endpoint's URL, at every endpoint: what OpenID Connect Core §9 says the audience
    /// should be, for providers that take nothing else (Microsoft Entra's documentation of
    /// certificate credentials names the token endpoint).
    case tokenEndpoint
    /// The URL of the endpoint each request goes to: the token endpoint's for a token request,
    /// the pushed authorization request endpoint's for a pushed request, the revocation
    /// endpoint's at sign-out. RFC 7523 §3 lets the token endpoint's URL stand for the
    /// authorization server; some providers (glewlwyd) take only the URL the assertion is sent to.
    case requestEndpoint
}

/// The `private_key_jwt` client authentication method (OpenID Connect Core §9): with each request
/// to the token, pushed authorization request, revocation and authorization challenge endpoints,
/// the client sends a JWT signed with its key (RFC 7523 §2.2), made afresh for each request and
/// each retry (a new `jti`).
///
/// ```swift
/// configuration.clientAuthentication = .privateKeyJWT(PrivateKeyJWT(key: key))
/// ```
///
/// Two values are equal when they were made from the same
/// ``init(key:audience:lifetime:certificateThumbprint:)`` call (or copies of it) and have the same
/// audience, lifetime and thumbprint: keys are not compared.
public struct PrivateKeyJWT: Sendable, Equatable {
    /// The key that signs the assertions.
    public var key: any ClientAssertionKey { fields.key }
    /// What `aud` holds; ``ClientAssertionAudience/issuer`` by default.
    public var audience: ClientAssertionAudience {
        get { fields.audience }
        set { fields = fields.with(audience: newValue) }
    }
    /// The SHA-256 thumbprint of the DER encoding of the key's X.509 certificate, sent as the
    /// header's `x5t#S256` (RFC 7515 §4.1.8): how Microsoft Entra finds the certificate an
    /// assertion is signed with (its documentation of certificate credentials). `nil` sends none.
    public var certificateThumbprint: Data? {
        get { fields.certificateThumbprint }
        set { fields = fields.with(certificateThumbprint: newValue) }
    }
    /// How long an assertion is valid: `exp` is `iat` plus this, on the provider's clock as the
    /// SDK knows it. 60 seconds by default; held to 1 second to 10 minutes.
    public var lifetime: TimeInterval {
        get { fields.lifetime }
        set { fields = fields.with(lifetime: Self.bounded(newValue)) }
    }

    /// The settings, behind one reference: a value is one pointer to copy and destroy. A setter
    /// makes new fields, so that copies never share a change.
    private var fields: Fields

    private final class Fields: Sendable {
        let key: any ClientAssertionKey
        let audience: ClientAssertionAudience
        let certificateThumbprint: Data?
        let lifetime: TimeInterval
        /// Who made the value: the same for every copy of one initializer call's value.
        let identity: Identity

        init(
            key: any ClientAssertionKey, audience: ClientAssertionAudience, certificateThumbprint: Data?,
            lifetime: TimeInterval, identity: Identity
        ) {
            self.key = key
            self.audience = audience
            self.certificateThumbprint = certificateThumbprint
            self.lifetime = lifetime
            self.identity = identity
        }

        func with(
            audience: ClientAssertionAudience? = nil, certificateThumbprint: Data?? = nil, lifetime: TimeInterval? = nil
        ) -> Fields {
            Fields(
                key: key, audience: audience ?? self.audience,
                certificateThumbprint: certificateThumbprint ?? self.certificateThumbprint,
                lifetime: lifetime ?? self.lifetime, identity: identity)
        }
    }

    private final class Identity: Sendable {}

    /// Assertions signed by `key`, with `audience` as `aud`, valid for `lifetime` seconds, naming
    /// the key's certificate by `certificateThumbprint` when given.
    public init(
        key: any ClientAssertionKey, audience: ClientAssertionAudience = .issuer, lifetime: TimeInterval = 60,
        certificateThumbprint: Data? = nil
    ) {
        fields = Fields(
            key: key, audience: audience, certificateThumbprint: certificateThumbprint,
            lifetime: Self.bounded(lifetime), identity: Identity())
    }

    static func bounded(_ lifetime: TimeInterval) -> TimeInterval {
        lifetime.isFinite ? min(max(lifetime, 1), 600) : 60
    }

    /// Whether both were made by the same initializer call and keep the same settings.
    public static func == (lhs: PrivateKeyJWT, rhs: PrivateKeyJWT) -> Bool {
        lhs.fields.identity === rhs.fields.identity && lhs.audience == rhs.audience && lhs.lifetime == rhs.lifetime
            && lhs.certificateThumbprint == rhs.certificateThumbprint
    }
}

extension PrivateKeyJWT: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The algorithm, the `kid`, the audience and the lifetime; never the key.
    public var description: String {
        "privateKeyJWT(\(key.algorithm)" + (key.keyID.map { ", kid: \($0)" } ?? "")
            + ", aud: \(audience == .issuer ? "issuer" : "token endpoint"), \(Int(lifetime)) s)"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Only the description, so that `dump()` shows no key.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// The values an assertion's `aud` is chosen from: the provider's issuer identifier, exactly as
/// its metadata writes it, and its token endpoint.
///
/// A class: built once from the metadata and only read.
final class ClientAssertionAudiences: Sendable {
    let issuer: String
    let tokenEndpoint: URL
    /// `token_endpoint_auth_signing_alg_values_supported`; `nil` when the provider does not say.
    let acceptedAlgorithms: [String]?

    init(issuer: String, tokenEndpoint: URL, acceptedAlgorithms: [String]? = nil) {
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.acceptedAlgorithms = acceptedAlgorithms
    }
}

extension PrivateKeyJWT {
    /// The method with a key whose algorithm the provider accepts: this one when the provider
    /// lists its key's algorithm (or lists none, RFC 8414 §2 making the member optional); for
    /// the SDK's RSA key, the same key with the other RSA algorithm the provider lists (PS256
    /// first); `nil` when the provider takes nothing the key can make.
    func accepted(by accepted: [String]?) -> PrivateKeyJWT? {
        guard let accepted, !accepted.isEmpty, !accepted.contains(key.algorithm) else { return self }
        guard let rsa = key as? RSAClientAssertionKey,
            let other = ["PS256", "RS256"].first(where: accepted.contains)
        else { return nil }
        return PrivateKeyJWT(
            key: rsa.signing(with: other), audience: audience, lifetime: lifetime,
            certificateThumbprint: certificateThumbprint)
    }
}

/// One client assertion (RFC 7523 §3, OpenID Connect Core §9), signed.
enum ClientAssertion {
    /// `client_assertion_type` for a JWT (RFC 7523 §2.2).
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The assertion of `clientId` for `audience`: header `alg`, `typ` `JWT` (RFC 7519 §5.1), and
    /// `kid` and `x5t#S256` when known; claims `iss` and `sub` (the client id), `aud` (one string),
    /// `jti` (16 random bytes), `iat`, `nbf` (both now, RFC 7523 §3 items 5 and 6) and `exp`.
    static func make(
        _ method: PrivateKeyJWT, clientId: String, audience: String, now: Date, jti: String = randomIdentifier()
    ) async throws(ClientAssertionFailure) -> Secret {
        let algorithm = method.key.algorithm
        guard JWSAlgorithm(joseName: algorithm) != nil else { throw .unsupportedAlgorithm }
        var header: [String: JSONValue] = ["alg": .string(algorithm), "typ": .string("JWT")]
        if let keyID = method.key.keyID { header["kid"] = .string(keyID) }
        if let thumbprint = method.certificateThumbprint { header["x5t#S256"] = .string(Base64URL.encode(thumbprint)) }
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        let payload: [String: JSONValue] = [
            "iss": .string(clientId), "sub": .string(clientId), "aud": .string(audience), "jti": .string(jti),
            "iat": .number(issuedAt), "nbf": .number(issuedAt), "exp": .number(issuedAt + method.lifetime.rounded(.up)),
        ]
        let input =
            Base64URL.encode(Array(JSONValue.object(header).description.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(payload).description.utf8))
        let signature: Data
        do {
            signature = try await method.key.sign(Data(input.utf8))
        } catch {
            throw .signingFailed(error)
        }
        guard !signature.isEmpty else { throw .signingFailed(nil) }
        return Secret(input + "." + Base64URL.encode(signature))
    }

    /// 16 random bytes from the system's secure generator, base64url: 128 bits, so two assertions
    /// never share a `jti`.
    static func randomIdentifier() -> String {
        var generator = SecureRandomGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

/// Why no assertion was made.
enum ClientAssertionFailure: Error {
    /// The key's algorithm is not a public-key JWS algorithm (`none`, a MAC, or unknown).
    case unsupportedAlgorithm
    /// The key did not sign (its own error, when it gave one).
    case signingFailed((any Error)?)
}
