import Foundation

/// One header line of a loopback HTTP message, with its name as sent.
package struct LoopbackHTTPHeader: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the header is named `name`, compared as field names are (RFC 9110 §5.1): ASCII
    /// letters without regard to case, every other byte as it is.
    package func isNamed(_ name: String) -> Bool {
        var mine = self.name.utf8.makeIterator()
        var theirs = name.utf8.makeIterator()
        while true {
            switch (mine.next(), theirs.next()) {
            case (nil, nil):
                return true
            case (let a?, let b?):
                guard a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A) else { return false }
            default:
                return false
            }
        }
    }
}

/// The HTTP version of a request line (`HTTP/1.0` or `HTTP/1.1`; others are refused by the parser).
package struct LoopbackHTTPVersion: Sendable, Equatable, CustomStringConvertible {
    package var major: Int
    package var minor: Int

    package static let http10 = LoopbackHTTPVersion(major: 1, minor: 0)
    package static let http11 = LoopbackHTTPVersion(major: 1, minor: 1)

    package var description: String { "HTTP/\(major).\(minor)" }
}

/// One request as ``LoopbackHTTPParser`` read it from the bytes of a connection.
package struct LoopbackHTTPRequest: Sendable, Equatable {
    /// The method token, case as sent (`GET`; methods are case-sensitive).
    package var method: String
    /// The request target as sent: `/path?query` (origin form) or `*`.
    package var target: String
    package var version: LoopbackHTTPVersion
    /// The header lines, in order, names as sent.
    package var headers: [LoopbackHTTPHeader]
    /// The body (`Content-Length` bytes; empty without one).
    package var body: [UInt8]

    /// The path of the target, still percent-encoded, without its query.
    package var path: String { String(target.prefix { $0 != "?" }) }

    /// The query of the target, still percent-encoded, without the `?`; `nil` when there is no `?`.
    package var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...])
    }

    /// The path with its percent-escapes decoded; `nil` when an escape is malformed or does not
    /// decode to UTF-8.
    package var decodedPath: String? { path.removingPercentEncoding }

    /// The value of the first header named `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.isNamed(name) }?.value
    }

    /// The values of every header named `name` (case-insensitive), in order.
    package func headers(named name: String) -> [String] {
        headers.filter { $0.isNamed(name) }.map(\.value)
    }

    /// Whether the client asked to keep the connection open after the response (HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`).
    package var wantsKeepAlive: Bool {
        let tokens = headers(named: "Connection")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if version == .http10 { return tokens.contains("keep-alive") }
        return !tokens.contains("close")
    }
}

/// One response a loopback server writes.
package struct LoopbackHTTPResponse: Sendable, Equatable {
    package var status: Int
    /// The header lines, in order. `Content-Length` and `Connection` are added on writing.
    package var headers: [LoopbackHTTPHeader]
    package var body: [UInt8]

    package init(status: Int, headers: [LoopbackHTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text response.
    package static func text(_ status: Int, _ text: String) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(
            status: status,
            headers: [
                LoopbackHTTPHeader("Content-Type", "text/plain; charset=utf-8"),
                LoopbackHTTPHeader("Cache-Control", "no-store"),
            ],
            body: Array(text.utf8))
    }

    /// A plain-text response whose body is the status line's reason phrase.
    package static func status(_ status: Int) -> LoopbackHTTPResponse {
        text(status, "\(status) \(reasonPhrase(status))\n")
    }

    /// The bytes to write: status line, headers, `Content-Length`, `Connection`, blank line and
    /// (unless `omitBody`, as for `HEAD`) the body. Header text is stripped of CR and LF, so a
    /// value can never start a header of its own.
    package func serialized(closeConnection: Bool, omitBody: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        let managed: Set<String> = ["content-length", "connection", "transfer-encoding"]
        for header in headers where !managed.contains(header.name.lowercased()) {
            head += "\(Self.clean(header.name)): \(Self.clean(header.value))\r\n"
        }
        let hasBody = !(100..<200).contains(status) && status != 204 && status != 304
        if hasBody { head += "Content-Length: \(body.count)\r\n" }
        head += closeConnection ? "Connection: close\r\n" : "Connection: keep-alive\r\n"
        head += "\r\n"
        var bytes = Array(head.utf8)
        if hasBody && !omitBody { bytes += body }
        return bytes
    }

    /// The reason phrase of the status codes this SDK's servers use; `Status` for others.
    package static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }

    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
    }
}
