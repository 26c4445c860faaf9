import Foundation

/// The comparison form of an `htu` and of a request's URI (RFC 9449 §4.3 step 9): RFC 3986's
/// syntax-based normalization (§6.2.2: scheme and host lowercased, percent-encodings in uppercase
/// and decoded where they stand for an unreserved character, dot segments removed) and scheme-based
/// normalization (§6.2.3: the default port and an empty path dropped or made `/`), which §4.3 asks
/// servers to apply before comparing.
enum DPoPTargetURI {
    /// `uri` normalized, or `nil` when it is not an absolute `http` or `https` URI with a host and
    /// no user information, query or fragment.
    static func normalized(_ uri: String) -> String? {
        guard uri.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), !uri.contains("?"), !uri.contains("#"),
            let colon = uri.firstIndex(of: ":")
        else { return nil }
        let scheme = uri[..<colon].lowercased()
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let rest = uri[uri.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        let hierarchy = rest.dropFirst(2)
        let slash = hierarchy.firstIndex(of: "/") ?? hierarchy.endIndex
        let authority = hierarchy[..<slash]
        guard let (host, port) = hostAndPort(authority) else { return nil }
        guard let path = normalizedPath(String(hierarchy[slash...])) else { return nil }
        let portPart = port == nil || port == defaultPort ? "" : ":\(port ?? defaultPort)"
        return "\(scheme)://\(host)\(portPart)\(path)"
    }

    /// The lowercased host and the port of an authority without user information, or `nil`.
    private static func hostAndPort(_ authority: Substring) -> (String, Int?)? {
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("%") else { return nil }
        var host = authority
        var port: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, port.utf8.count <= 5, port.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        // RFC 3986 §6.2.3: an empty port is the default one.
        guard !port.isEmpty else { return (host.lowercased(), nil) }
        guard let number = Int(port), number <= 65535 else { return nil }
        return (host.lowercased(), number)
    }

    /// The path with its percent-encodings normalized and its dot segments removed (RFC 3986
    /// §6.2.2.2, §6.2.2.3 with §5.2.4); `/` for an empty path; `nil` for a malformed encoding.
    static func normalizedPath(_ path: String) -> String? {
        var bytes: [UInt8] = []
        var input = Array(path.utf8)[...]
        while let byte = input.first {
            input = input.dropFirst()
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard input.count >= 2, let high = JSONParser.hexValue(input[input.startIndex]),
                let low = JSONParser.hexValue(input[input.startIndex + 1])
            else { return nil }
            input = input.dropFirst(2)
            let decoded = high << 4 | low
            if isUnreserved(decoded) {
                bytes.append(decoded)
            } else {
                bytes += Array(("%" + hex(high) + hex(low)).utf8)
            }
        }
        let removed = removingDotSegments(String(decoding: bytes, as: UTF8.self))
        return removed.isEmpty ? "/" : removed
    }

    /// RFC 3986 §5.2.4, step by step.
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                _ = output.popLast()
            } else if input == "/.." {
                input = "/"
                _ = output.popLast()
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // The first segment, with its leading "/" if any, up to the next "/".
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || "-._~".utf8.contains(byte)
    }

    private static func hex(_ nibble: UInt8) -> String {
        String(nibble, radix: 16, uppercase: true)
    }
}
