import Foundation

extension HTTPRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Headers whose values are credentials (a DPoP proof too: it is good for its request until its
    /// `iat` window closes): shown as `<redacted>`.
    static let credentialHeaders = ["authorization", "proxy-authorization", "cookie", "dpop"]

    /// The method, the URL without its query, the headers (credential headers redacted) and the
    /// body's size. Never a query, a body or an `Authorization` value: they carry tokens, codes
    /// and client secrets.
    public var description: String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let hadQuery = components?.percentEncodedQuery != nil
        components?.percentEncodedQuery = nil
        components?.fragment = nil
        let target = (components?.string ?? "<url>") + (hadQuery ? "?<redacted>" : "")
        // In order of the names without case, then as written, through the SDK's one sort of strings.
        let names = ascending(Array(headers.keys))
        let ordered = ascending(Array(Set(names.map { $0.lowercased() }))).flatMap { lowered in
            names.filter { $0.lowercased() == lowered }
        }
        let headerText = ordered.map { name in
            let value = Self.credentialHeaders.contains(name.lowercased()) ? "<redacted>" : headers[name, default: ""]
            return "\(name): " + value
        }
        let bodyText = body.map { "\($0.count) bytes" } ?? "none"
        return "HTTPRequest(\(method) \(target), headers: [\(headerText.joined(separator: ", "))], body: \(bodyText))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Only the description, so that `dump()` shows no credential or body byte.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
