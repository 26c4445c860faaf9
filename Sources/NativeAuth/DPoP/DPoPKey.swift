public import Foundation

/// A key that proves possession of DPoP-bound tokens (RFC 9449): it signs the proof JWT the SDK
/// sends with every token request and every request of an authorized API call.
///
/// The SDK's own keys (``SoftwareDPoPKeyProvider`` everywhere, the Secure Enclave on Apple
/// platforms) implement it; an app can supply its own, such as a key in an HSM or one made with a
/// crypto library of its choice, through a ``DPoPKeyProvider``. A key never appears in logs,
/// descriptions or errors: implementations keep private material out of `description`.
public protocol DPoPKey: Sendable {
    /// The JWS algorithm of the proofs it signs (RFC 7518 §3.1), such as `"ES256"` or `"RS256"`.
    var algorithm: String { get }
    /// The public key as the members of a JSON Web Key (RFC 7517 §4, RFC 7518 §6): `kty` `RSA`
    /// with `n` and `e`, or `kty` `EC` with `crv`, `x` and `y`. Never a private member.
    var publicJWK: [String: String] { get }
    /// Signs `input`, the JWS signing input (`BASE64URL(header) || '.' || BASE64URL(payload)`),
    /// and returns the JWS signature: for RS256 the RSASSA-PKCS1-v1_5 signature, for PS256 the
    /// RSASSA-PSS one, for ES256 the 64-byte `R || S` (RFC 7518 §3.4), not DER.
    func sign(_ input: Data) async throws -> Data
}

/// Makes, finds again and forgets the DPoP keys of a ``WebAuthClient``: one key per account,
/// made at sign-in, kept with the account (as ``DPoPKeyProvider/makeKey(algorithm:)``'s stored
/// form, in the client's credential store) and forgotten at sign-out.
public protocol DPoPKeyProvider: Sendable {
    /// The algorithms it makes keys for, the preferred first. The provider's
    /// `dpop_signing_alg_values_supported` chooses among them.
    var supportedAlgorithms: [String] { get }
    /// Makes a new key for `algorithm` (one of ``supportedAlgorithms``).
    ///
    /// - Returns: the key, and the bytes the SDK keeps with the account to find it again with
    ///   ``restoreKey(from:)``: a handle (the Secure Enclave's encrypted key blob, an HSM's key
    ///   label) or, for a software key, the key itself. They are stored like a refresh token.
    func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data)
    /// The key that `storedForm` stands for, when the account is read back from the store.
    func restoreKey(from storedForm: Data) async throws -> any DPoPKey
    /// The account that used the key was signed out or replaced: delete it where it lives. The
    /// SDK deletes the stored form with the account either way.
    func deleteKey(storedForm: Data) async
}

extension DPoPKeyProvider {
    /// Nothing to delete beyond the stored form, which the SDK deletes with the account.
    public func deleteKey(storedForm: Data) async {}
}

/// Turns DPoP on for a ``WebAuthClient`` (``WebAuthConfiguration/dpop``).
public struct DPoPConfiguration: Sendable {
    /// Makes and keeps the accounts' keys.
    public var keyProvider: any DPoPKeyProvider {
        get { held.keyProvider }
        set { held = Held(newValue) }
    }

    /// The provider, behind one reference: a configuration is one pointer to copy and destroy,
    /// not an existential's five words.
    private var held: Held

    private final class Held: Sendable {
        let keyProvider: any DPoPKeyProvider
        init(_ keyProvider: any DPoPKeyProvider) { self.keyProvider = keyProvider }
    }

    /// DPoP with `keyProvider`'s keys; by default the platform's (``PlatformDPoPKeyProvider``:
    /// a P-256 key in the Secure Enclave where there is one, else a software P-256 key on Apple
    /// platforms; a PS256 or RS256 key made by the SDK elsewhere).
    public init(keyProvider: any DPoPKeyProvider = PlatformDPoPKeyProvider.make()) {
        held = Held(keyProvider)
    }
}
