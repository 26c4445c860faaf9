import AuthSupport
import Foundation

/// The latest `DPoP-Nonce` each server gave (RFC 9449 §8 for the authorization server, §9 for a
/// resource server), by origin: the next proof to that server carries it. A server may change its
/// nonce in any answer; the newest one wins.
final class DPoPNonces: Sendable {
    private let nonces = Locked<[String: String]>([:])
    /// At most this many servers are remembered (an app calls few); the oldest entry goes first.
    static let capacity = 64
    /// A nonce longer than this is ignored (§8.1: a nonce is an opaque `1*NQCHAR` string).
    static let maximumLength = 1024

    /// The nonce to send to `url`'s origin, when one is known.
    func nonce(for url: URL) -> String? {
        guard let origin = Self.origin(of: url) else { return nil }
        return nonces.withLock { $0[origin] }
    }

    /// Keeps the `DPoP-Nonce` of `response`, an answer from `url`, when it has a valid one.
    /// - Returns: the nonce, when the answer carried one.
    @discardableResult
    func remember(_ response: HTTPResponse, from url: URL) -> String? {
        guard let origin = Self.origin(of: url), let nonce = Self.nonce(in: response) else { return nil }
        nonces.withLock { nonces in
            if nonces[origin] == nil, nonces.count >= Self.capacity, let first = nonces.sortedKeys.first {
                nonces[first] = nil
            }
            nonces[origin] = nonce
        }
        return nonce
    }

    /// The answer's `DPoP-Nonce` header, when it is a valid nonce: `1*NQCHAR`, where NQCHAR is
    /// %x21 / %x23-5B / %x5D-7E (§8.1).
    static func nonce(in response: HTTPResponse) -> String? {
        guard let value = response.header("DPoP-Nonce")?.trimmingCharacters(in: .whitespaces),
            !value.isEmpty, value.utf8.count <= maximumLength,
            value.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) })
        else { return nil }
        return value
    }

    /// `scheme://host[:port]`, lower-cased.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
