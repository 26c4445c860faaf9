public import Foundation

/// The claims of an ID token, with typed access to the standard ones and a subscript for any other.
public struct Claims: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Every claim, by name.
    public let all: [String: JSONValue]

    /// Wraps decoded claims.
    public init(_ all: [String: JSONValue]) { self.all = all }

    /// The claim `name`, if present.
    public subscript(name: String) -> JSONValue? { all[name] }

    /// The claim `name` as a string, if it is one.
    public func string(_ name: String) -> String? { all[name]?.stringValue }

    /// `sub`: the subject, unique to the user and this application.
    public var subject: String? { string("sub") }
    /// `oid`: the user's object id in the tenant.
    public var objectId: String? { string("oid") }
    /// `tid`: the tenant id.
    public var tenantId: String? { string("tid") }
    /// `preferred_username`: the user's sign-in name.
    public var preferredUsername: String? { string("preferred_username") }
    /// `email`, when the tenant releases it.
    public var email: String? { string("email") }
    /// `name`: the display name.
    public var name: String? { string("name") }
    /// `iss`: the issuer.
    public var issuer: String? { string("iss") }
    /// `aud` as a list (a single audience becomes a list of one).
    public var audiences: [String] { strings("aud") }
    /// `exp`: when the token expires.
    public var expiresAt: Date? { date("exp") }
    /// `iat`: when the token was issued.
    public var issuedAt: Date? { date("iat") }
    /// `roles`: the app roles granted to the user.
    public var roles: [String] { strings("roles") }
    /// `scp`: the delegated scopes, split on spaces (access tokens).
    public var scopes: [String] { string("scp").map { $0.split(separator: " ").map(String.init) } ?? [] }

    /// The claim `name` as a date, when it is a number of seconds since 1970.
    public func date(_ name: String) -> Date? {
        guard let seconds = all[name]?.doubleValue, seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The claim `name` as a list of strings: an array of strings, or one string as a list of one.
    public func strings(_ name: String) -> [String] {
        switch all[name] {
        case .string(let value): return [value]
        case .array(let values): return values.compactMap(\.stringValue)
        default: return []
        }
    }

    /// The claim names; values are left out, since a description may be logged.
    public var description: String { "Claims(" + all.sortedKeys.joined(separator: ", ") + ")" }

    /// The claim names only, as in ``description``: `dump` and debuggers show no claim values (an
    /// ID token's `nonce` among them).
    public var customMirror: Mirror {
        Mirror(self, children: ["names": all.sortedKeys], displayStyle: .struct)
    }
}
