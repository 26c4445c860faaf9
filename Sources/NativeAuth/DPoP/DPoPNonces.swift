import AuthSupport
import Foundation

/// The latest `DPoP-Nonce` each server gave, by the server's role and origin: the next proof to
/// that server carries it. An authorization server's nonce (RFC 9449 §8) and a resource server's
/// (§9) are kept apart even on one origin, since each server checks its own: a proof carries the
/// authorization server's nonce when it goes to the token or PAR endpoint (a proof without an
/// access token) and the resource server's when it comes with an access token (`ath`, §4.2),
/// userinfo included. A server may change its nonce in any answer; the newest one wins.
final class DPoPNonces: Sendable {
    /// (role and origin, nonce), the least recently given first.
    private let nonces = Locked<[(server: String, nonce: String)]>([])
    /// At most this many servers are remembered (an app calls few); when one more gives a nonce,
    /// the one whose nonce is the oldest is forgotten.
    static let capacity = 64
    /// A nonce longer than this is ignored (§8.1 sets no limit; a nonce is an opaque `1*NQCHAR`
    /// string, and one this long is no server's).
    static let maximumLength = 1024

    /// The nonce to send to `url`'s origin, when one is known: the resource server's for a
    /// request that carries an access token, the authorization server's otherwise.
    func nonce(for url: URL, withAccessToken: Bool) -> String? {
        guard let server = Self.server(url, withAccessToken: withAccessToken) else { return nil }
        return nonces.withLock { $0.first { $0.server == server }?.nonce }
    }

    /// Keeps the `DPoP-Nonce` of `response`, an answer from `url`, when it has a valid one.
    /// - Returns: the nonce, when the answer carried one.
    @discardableResult
    func remember(_ response: HTTPResponse, from url: URL, withAccessToken: Bool) -> String? {
        guard let server = Self.server(url, withAccessToken: withAccessToken), let nonce = Self.nonce(in: response)
        else { return nil }
        nonces.withLock { nonces in
            nonces.removeAll { $0.server == server }
            if nonces.count >= Self.capacity { nonces.removeFirst() }
            nonces.append((server, nonce))
        }
        return nonce
    }

    /// The key of `url`'s server in its role.
    private static func server(_ url: URL, withAccessToken: Bool) -> String? {
        origin(of: url).map { (withAccessToken ? "resource " : "authorization ") + $0 }
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
