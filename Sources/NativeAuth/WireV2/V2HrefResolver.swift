import Foundation

/// A URL the SDK may send a V2 request to: made only by ``V2HrefResolver``, which checked the
/// href it came from. The requests that carry a continuation token, a code or a password take
/// one of these, never a plain URL.
/// A class: it never changes once made, and the states, calls and answers that hold it share it.
final class V2Link: Sendable, Equatable, CustomStringConvertible {
    let url: URL

    fileprivate init(_ url: URL) { self.url = url }

    static func == (lhs: V2Link, rhs: V2Link) -> Bool { lhs.url == rhs.url }

    /// The path only: a query may carry a slice or a session marker that logs do not need.
    var description: String { url.path }
}

/// Why an href from an answer is not followed (Docs/NativeAuthV2Protocol.md, "Following an href").
enum V2HrefError: Error, Sendable, Equatable {
    /// Empty, or only white space.
    case blank
    /// Not a URL reference the SDK reads: white space or control characters, a backslash, a bad
    /// percent escape, a character outside RFC 3986, a relative path without a leading `/`, or
    /// longer than ``V2HrefResolver/maximumLength``.
    case malformed
    /// A `//host/…` network-path reference.
    case networkPath
    /// A user name or password before the host.
    case userInfo
    /// A `#fragment`.
    case fragment
    /// `http` while the authority is `https`.
    case insecureScheme
    /// A scheme other than `https` and `http`.
    case unsupportedScheme
    /// An absolute href to another host than the authority's.
    case otherHost
    /// An absolute href to another port than the authority's.
    case otherPort
    /// A placeholder other than one leading `{tenant}` segment.
    case templated
    /// A `.` or `..` segment, which could walk out of the authority's path.
    case dotSegment
    /// No `/api/` or `/oauth2/` segment to graft onto the authority.
    case noAPISegment
}

/// Turns an href of a V2 answer into the URL to call, security first
/// (Docs/NativeAuthV2Protocol.md, "Following an href").
///
/// The path is rewritten as the three MSAL clients do: everything before the first `/api/` or
/// `/oauth2/` is dropped (the tenant segment the continuation token is not bound to) and the rest
/// is grafted onto the authority's own path, with the href's query kept (the service's links do
/// not yet all resolve as they are: MSAL for JavaScript's `HrefResolverV2.ts` keeps the rewrite
/// until they do). Under a loopback `http` authority, which is never the service's, the href's
/// path and query are used unchanged, as Microsoft's V2 reference has a client do. The checks are the
/// strictest client's (the Android column of that section's table), so a continuation token, a
/// code or a password only ever goes to the authority's scheme, host and port.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class V2HrefResolver: Sendable {
    /// The longest href read, in UTF-8 bytes.
    static let maximumLength = 2_048

    let scheme: String
    let host: String
    let port: Int?
    /// The authority's path, percent-encoded, without a trailing slash.
    let basePath: String
    /// `scheme://host[:port]` and the base path, written once: every resolved link starts with it.
    private let prefix: String?
    /// `scheme://host[:port]`: where a loopback `http` authority's links start.
    private let origin: String?
    /// The configured data center (``SliceConfig/dc``): added as `dc` to a link whose href has none.
    let dataCenter: String?

    init(authority: URL, dataCenter: String? = nil) {
        self.dataCenter = dataCenter
        let components = URLComponents(url: authority, resolvingAgainstBaseURL: false)
        scheme = components?.scheme?.lowercased() ?? "https"
        host = components?.host?.lowercased() ?? ""
        port = components?.port
        var path = components?.percentEncodedPath ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
        var origin = URLComponents()
        origin.scheme = scheme
        origin.host = host
        origin.port = port
        prefix = origin.string.map { $0 + path }
        self.origin = origin.string
    }

    /// The URL to call for `href`, or why it is refused.
    ///
    /// Every check reads the href's UTF-8 bytes once, with no Foundation string search: the
    /// resolver runs for every link a V2 sign-in follows.
    func resolve(_ href: String) throws(V2HrefError) -> V2Link {
        guard !href.allSatisfy(\.isWhitespace) else { throw .blank }
        let bytes = Array(href.utf8)
        guard bytes.count <= Self.maximumLength else { throw .malformed }
        // White space, controls and backslashes (which some parsers read as `/`) are never valid.
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else { throw .malformed }
        guard !bytes.contains(UInt8(ascii: "#")) else { throw .fragment }
        guard !bytes.starts(with: Self.slashSlash) else { throw .networkPath }
        let pathAndQuery: ArraySlice<UInt8>
        if bytes.first == UInt8(ascii: "/") {
            pathAndQuery = bytes[...]
        } else {
            pathAndQuery = try checkedAbsolute(href, bytes)
        }
        let mark = pathAndQuery.firstIndex(of: UInt8(ascii: "?"))
        let path = pathAndQuery[..<(mark ?? pathAndQuery.endIndex)]
        let query = mark.map { pathAndQuery[($0 + 1)...] }
        let rest = try Self.untemplated(path)
        guard !(query?.contains(where: Self.isBrace) ?? false) else { throw .templated }
        guard Self.isValid(rest, extra: "/"), query.map({ Self.isValid($0, extra: "/?") }) ?? true else {
            throw .malformed
        }
        var segmentStart = rest.startIndex
        for index in rest.indices where rest[index] == UInt8(ascii: "/") {
            guard !Self.isDotSegment(rest[segmentStart..<index]) else { throw .dotSegment }
            segmentStart = index + 1
        }
        guard !Self.isDotSegment(rest[segmentStart...]) else { throw .dotSegment }
        guard let tail = Self.apiTail(of: rest) else { throw .noAPISegment }
        // Under a loopback `http` authority (a server of the app's own, never Entra's) the href's
        // path is used unchanged, as Microsoft's V2 reference says; elsewhere it is grafted as
        // MSAL's clients graft it (see the type's comment).
        let keepsPath = scheme == "http" && NativeAuthConfiguration.isLoopback(host)
        let graft = String(decoding: keepsPath ? rest : tail, as: UTF8.self)
        let prefix = keepsPath ? origin : prefix
        let sent = withDataCenter(query)
        // Every byte left was checked as RFC 3986's: the URL is the prefix and the graft.
        if let prefix, let url = URL(string: prefix + graft + (sent.map { "?" + $0 } ?? "")) {
            return V2Link(url)
        }
        var components = URLComponents()
        components.scheme = scheme
        components.host = host
        components.port = port
        components.percentEncodedPath = (keepsPath ? "" : basePath) + graft
        if let sent { components.percentEncodedQuery = sent }
        guard let url = components.url else { throw .malformed }
        return V2Link(url)
    }

    private static let slashSlash = Array("//".utf8)

    private static func isBrace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") }

    /// `query` (`nil` when empty) with the configured `dc` added when it has no `dc` of its own,
    /// as MSAL's resolver does: the href's wins (Docs/NativeAuthV2Protocol.md, "The slice parameters").
    private func withDataCenter(_ query: ArraySlice<UInt8>?) -> String? {
        let given = query.flatMap { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) }
        guard let dataCenter, !(query.map(Self.hasDataCenter) ?? false) else { return given }
        return (given.map { $0 + "&" } ?? "") + "dc=" + SliceConfig.encoded(dataCenter)
    }

    /// Whether a parameter of `query` is named `dc`, its name percent-decoded (`%64c` is `dc`).
    /// The query's escapes were checked as well-formed.
    private static func hasDataCenter(_ query: ArraySlice<UInt8>) -> Bool {
        let name = Array("dc".utf8)
        // How many bytes of `dc` the current parameter's decoded name matched; -1 once it cannot.
        var matched = 0
        var inName = true
        var index = query.startIndex
        while index <= query.endIndex {
            let byte = index < query.endIndex ? query[index] : UInt8(ascii: "&")
            index += 1
            if byte == UInt8(ascii: "&") {
                if matched == name.count { return true }
                matched = 0
                inName = true
                continue
            }
            guard inName else { continue }
            if byte == UInt8(ascii: "=") {
                inName = false
                continue
            }
            var decoded = byte
            if byte == UInt8(ascii: "%"), index + 1 < query.endIndex {
                decoded = hexValue(query[index]) << 4 | hexValue(query[index + 1])
                index += 2
            }
            matched = matched >= 0 && matched < name.count && decoded == name[matched] ? matched + 1 : -1
        }
        return false
    }

    private static func hexValue(_ byte: UInt8) -> UInt8 {
        byte <= UInt8(ascii: "9") ? byte &- UInt8(ascii: "0") : (byte | 0x20) &- UInt8(ascii: "a") &+ 10
    }

    /// The path and query of an absolute href, once its scheme, host and port are the authority's.
    private func checkedAbsolute(_ href: String, _ bytes: [UInt8]) throws(V2HrefError) -> ArraySlice<UInt8> {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed }
        let name = bytes[..<colon]
        func isSchemeByte(_ byte: UInt8) -> Bool {
            Self.isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        guard let first = name.first, Self.isLetter(first), name.allSatisfy(isSchemeByte) else {
            // A relative path without a leading `/` (`api/…`, `a:b/…` is never one the service sends).
            throw .malformed
        }
        let lowered = String(decoding: name, as: UTF8.self).lowercased()
        switch lowered {
        case "https": break
        case "http" where scheme == "http" && NativeAuthConfiguration.isLoopback(host): break
        case "http": throw .insecureScheme
        default: throw .unsupportedScheme
        }
        let afterColon = bytes[(colon + 1)...]
        guard afterColon.starts(with: Self.slashSlash) else { throw .malformed }
        let rest = afterColon.dropFirst(2)
        let end = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? rest.endIndex
        let authorityPart = rest[..<end]
        guard !authorityPart.contains(UInt8(ascii: "@")) else { throw .userInfo }
        let (hrefHost, hrefPort) = try Self.hostAndPort(authorityPart)
        guard String(decoding: hrefHost, as: UTF8.self).lowercased() == host else { throw .otherHost }
        let defaultPort = lowered == "https" ? 443 : 80
        let authorityDefault = scheme == "https" ? 443 : 80
        guard (hrefPort ?? defaultPort) == (port ?? authorityDefault) else { throw .otherPort }
        let pathAndQuery = rest[end...]
        guard pathAndQuery.first == UInt8(ascii: "/") else { throw .noAPISegment }
        return pathAndQuery
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// `host[:port]` or `[v6][:port]`, read from the bytes (checked as printable ASCII) of an
    /// href's authority.
    private static func hostAndPort(_ text: ArraySlice<UInt8>) throws(V2HrefError) -> (ArraySlice<UInt8>, Int?) {
        var hostPart = text
        var portPart: ArraySlice<UInt8>?
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { throw .malformed }
            hostPart = text[...close]
            let after = text[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw .malformed }
                portPart = after.dropFirst()
            }
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            hostPart = text[..<colon]
            portPart = text[(colon + 1)...]
        }
        guard !hostPart.isEmpty, !hostPart.contains(where: isBrace) else {
            throw hostPart.contains(UInt8(ascii: "{")) ? .templated : .malformed
        }
        guard let portPart else { return (hostPart, nil) }
        guard !portPart.isEmpty, portPart.count <= 5 else { throw .malformed }
        var port = 0
        for byte in portPart {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { throw .malformed }
            port = port * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard port <= 65_535 else { throw .malformed }
        return (hostPart, port)
    }

    /// The path without a leading `{tenant}` segment, the only template followed (the Android
    /// rule in Docs/NativeAuthV2Protocol.md, "Interaction answers"); any other brace is refused.
    private static func untemplated(_ path: ArraySlice<UInt8>) throws(V2HrefError) -> ArraySlice<UInt8> {
        let rest = path.starts(with: tenantTemplate) ? path.dropFirst(tenantTemplate.count - 1) : path
        guard !rest.contains(where: isBrace) else { throw .templated }
        return rest
    }

    private static let tenantTemplate = Array("/{tenant}/".utf8)

    /// Whether a path segment is `.` or `..`, its dots percent-encoded or not (`%2e`, `%2E`).
    private static func isDotSegment(_ segment: ArraySlice<UInt8>) -> Bool {
        var dots = 0
        var index = segment.startIndex
        while index < segment.endIndex {
            if segment[index] == UInt8(ascii: ".") {
                index = segment.index(after: index)
            } else if segment[index] == UInt8(ascii: "%"), segment.distance(from: index, to: segment.endIndex) >= 3,
                segment[segment.index(index, offsetBy: 1)] == UInt8(ascii: "2"),
                segment[segment.index(index, offsetBy: 2)] | 0x20 == UInt8(ascii: "e")
            {
                index = segment.index(index, offsetBy: 3)
            } else {
                return false
            }
            dots += 1
            if dots > 2 { return false }
        }
        return dots == 1 || dots == 2
    }

    /// The path from its first `/api/` or `/oauth2/` segment on.
    private static func apiTail(of path: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        for start in path.indices where path[start] == UInt8(ascii: "/") {
            let rest = path[start...]
            if rest.starts(with: apiMark) || rest.starts(with: oauth2Mark) { return rest }
        }
        return nil
    }

    private static let apiMark = Array("/api/".utf8)
    private static let oauth2Mark = Array("/oauth2/".utf8)

    /// Whether `text` holds only RFC 3986 path characters (and `extra`), with well-formed escapes.
    private static func isValid(_ text: ArraySlice<UInt8>, extra: StaticString) -> Bool {
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < text.endIndex, isHex(text[index + 1]), isHex(text[index + 2]) else {
                    return false
                }
                index += 3
                continue
            }
            let allowed =
                byte < 0x80
                && (pathCharacters[Int(byte)]
                    || extra.withUTF8Buffer { $0.contains(byte) })
            guard allowed else { return false }
            index += 1
        }
        return true
    }

    /// RFC 3986 `pchar` without `%`: unreserved and sub-delimiters, `:` and `@`, by ASCII code.
    private static let pathCharacters: [Bool] = (0..<128).map { code in
        let byte = UInt8(code)
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-._~!$&'()*+,;=:@".utf8.contains(byte)
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
