import AuthCrypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636), `S256` only: the SDK never sends `plain`.
///
/// The verifier stays in the app and goes to the token endpoint only; the challenge,
/// base64url(SHA-256(verifier)), goes in the authorization URL.
///
/// A class: made once per sign-in and only read, so flows hand a reference along.
final class PKCE: Sendable, Equatable {
    /// The one method the SDK uses.
    static let method = "S256"
    /// RFC 7636 §4.1: a verifier is 43 to 128 characters.
    static let lengths = 43...128
    /// The verifier length the SDK generates: 64 characters of a 66-letter alphabet, about 386 bits.
    static let defaultLength = 64

    /// The unreserved characters of RFC 3986, which a verifier is made of.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    let verifier: Secret
    let challenge: String

    /// A fresh verifier of `length` characters (kept within 43…128) drawn uniformly from
    /// ``alphabet`` with `random` (the system's CSPRNG outside tests).
    init(length: Int = PKCE.defaultLength, random: any WebRandomSource = SystemWebRandomSource()) {
        let count = min(max(length, Self.lengths.lowerBound), Self.lengths.upperBound)
        var generator = WebRandomGenerator(source: random)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(Self.alphabet[Int(generator.next(upperBound: UInt(Self.alphabet.count)))])
        }
        let verifier = String(decoding: bytes, as: UTF8.self)
        self.verifier = Secret(verifier)
        challenge = Self.challenge(for: verifier)
    }

    /// A given verifier, checked: 43 to 128 unreserved characters.
    ///
    /// - Throws: ``WebSignInError/isInvalidParameters`` for any other verifier.
    init(verifier: String) throws(WebSignInError) {
        let utf8 = Array(verifier.utf8)
        guard Self.lengths.contains(utf8.count), utf8.allSatisfy(Self.alphabet.contains) else {
            throw .invalidParameters("A PKCE verifier is 43 to 128 unreserved characters.")
        }
        self.verifier = Secret(verifier)
        challenge = Self.challenge(for: verifier)
    }

    static func == (lhs: PKCE, rhs: PKCE) -> Bool {
        lhs.verifier == rhs.verifier && lhs.challenge == rhs.challenge
    }

    /// base64url(SHA-256(ASCII(verifier))), RFC 7636 §4.2.
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(Array(verifier.utf8))))
    }
}

/// The one-time values of an authorization request: `state` and `nonce`.
enum OAuthRandom {
    /// 32 random bytes: 256 bits, twice the 128 the SDK requires.
    static let byteCount = 32

    /// A base64url string of ``byteCount`` random bytes from `random` (43 characters).
    static func token(random: any WebRandomSource = SystemWebRandomSource()) -> Secret {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        while bytes.count < byteCount {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) where bytes.count < byteCount {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Secret(Base64URL.encode(Data(bytes)))
    }

    /// Compares two secrets in time that depends on their lengths only, not on where they differ.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
