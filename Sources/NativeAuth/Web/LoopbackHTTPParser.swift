/// The size bounds a loopback server holds a request to.
struct LoopbackHTTPLimits: Sendable, Equatable {
    /// The longest request line, without its CRLF; longer is `414 URI Too Long`.
    var maxRequestLineBytes = 8 * 1024
    /// The longest head (request line, header lines and their CRLFs); longer is `431`.
    var maxHeadBytes = 8 * 1024
    /// The most header lines; more is `431`.
    var maxHeaderCount = 100
    /// The largest `Content-Length`; larger is `413 Content Too Large`.
    var maxBodyBytes = 64 * 1024
}

/// Why bytes are not a request, and the status to answer with before closing the connection.
enum LoopbackHTTPParseError: Error, Sendable, Equatable {
    case requestLineTooLong
    case headTooLarge
    case tooManyHeaders
    case invalidLineEnding
    case malformedRequestLine
    case invalidMethod
    case invalidTarget
    case unsupportedVersion
    case malformedHeader
    case invalidHost
    case invalidContentLength
    case bodyTooLarge
    case unsupportedTransferEncoding
    /// The connection ended in the middle of a request.
    case truncated

    /// The status to answer with.
    var status: Int {
        switch self {
        case .requestLineTooLong: 414
        case .headTooLarge, .tooManyHeaders: 431
        case .unsupportedVersion: 505
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .invalidLineEnding, .malformedRequestLine, .invalidMethod, .invalidTarget, .malformedHeader,
            .invalidHost, .invalidContentLength, .truncated:
            400
        }
    }
}

/// What the bytes received so far on a connection hold.
enum LoopbackHTTPParseResult: Sendable, Equatable {
    /// Not a whole request yet, and nothing wrong so far: read more.
    case incomplete
    /// A whole request, which took the first `consumed` bytes (the rest begins the next request).
    case complete(LoopbackHTTPRequest, consumed: Int)
    /// Not a request: answer `error.status` and close.
    case invalid(LoopbackHTTPParseError)
}

/// Reads one HTTP/1.1 request from bytes: pure, no I/O, so every rule is tested on byte strings.
///
/// Strict where leniency lets requests be misread: lines end with CRLF only (a lone CR or LF is
/// refused), no whitespace before a header's colon, no folded header lines, one `Host` on HTTP/1.1,
/// no `Transfer-Encoding` (chunked bodies are not supported), a single `Content-Length`. The target
/// must be in origin form (`/path?query`) or `*`. Empty lines before the request line are skipped,
/// as RFC 9112 §2.2 allows.
enum LoopbackHTTPParser {
    private static let cr: UInt8 = 13
    private static let lf: UInt8 = 10

    /// Parses the request at the start of `bytes`.
    static func parse(_ bytes: [UInt8], limits: LoopbackHTTPLimits = LoopbackHTTPLimits()) -> LoopbackHTTPParseResult {
        var start = 0
        while start + 1 < bytes.count, bytes[start] == cr, bytes[start + 1] == lf, start < limits.maxHeadBytes {
            start += 2
        }
        switch scanHead(bytes, from: start, limits: limits) {
        case .failure(let error):
            return .invalid(error)
        case .success(nil):
            return .incomplete
        case .success(let (lines, bodyStart)?):
            do {
                var request = try makeRequest(lines: lines, bytes: bytes, limits: limits)
                let length = try contentLength(of: request, limits: limits)
                guard bytes.count - bodyStart >= length else { return .incomplete }
                request.body = Array(bytes[bodyStart..<(bodyStart + length)])
                return .complete(request, consumed: bodyStart + length)
            } catch {
                return .invalid(error)
            }
        }
    }

    // MARK: Head

    /// Finds the lines of the head; `nil` while the blank line ending it has not arrived.
    private static func scanHead(
        _ bytes: [UInt8], from start: Int, limits: LoopbackHTTPLimits
    ) -> Result<(lines: [Range<Int>], bodyStart: Int)?, LoopbackHTTPParseError> {
        var lines: [Range<Int>] = []
        var lineStart = start
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == lf { return .failure(.invalidLineEnding) }
            if byte == cr {
                guard index + 1 < bytes.count else { break }
                guard bytes[index + 1] == lf else { return .failure(.invalidLineEnding) }
                if index == lineStart {
                    return lines.isEmpty ? .failure(.malformedRequestLine) : .success((lines, index + 2))
                }
                lines.append(lineStart..<index)
                if lines.count > limits.maxHeaderCount + 1 { return .failure(.tooManyHeaders) }
                index += 2
                lineStart = index
                continue
            }
            if lines.isEmpty && index - start >= limits.maxRequestLineBytes { return .failure(.requestLineTooLong) }
            if index - start >= limits.maxHeadBytes { return .failure(.headTooLarge) }
            index += 1
        }
        return .success(nil)
    }

    private static func makeRequest(
        lines: [Range<Int>], bytes: [UInt8], limits: LoopbackHTTPLimits
    ) throws(LoopbackHTTPParseError) -> LoopbackHTTPRequest {
        guard let first = lines.first else { throw .malformedRequestLine }
        let parts = bytes[first].split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedRequestLine }
        let (method, target, versionText) = (parts[0], parts[1], parts[2])
        guard !method.isEmpty, method.count <= 32, method.allSatisfy(isTokenByte) else { throw .invalidMethod }
        guard isValidTarget(target) else { throw .invalidTarget }
        let version = try parseVersion(versionText)

        var headers: [LoopbackHTTPHeader] = []
        for line in lines.dropFirst() {
            headers.append(try parseHeader(bytes[line]))
        }
        let request = LoopbackHTTPRequest(
            method: ascii(method), target: ascii(target), version: version, headers: headers, body: [])
        if version == .http11 || !request.headers(named: "Host").isEmpty {
            let hosts = request.headers(named: "Host")
            guard hosts.count == 1, let host = hosts.first, isValidHost(host) else { throw .invalidHost }
        }
        return request
    }

    private static func isValidTarget(_ target: ArraySlice<UInt8>) -> Bool {
        guard let first = target.first else { return false }
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else { return false }
        if first == UInt8(ascii: "/") { return true }
        return target.count == 1 && first == UInt8(ascii: "*")
    }

    private static func parseVersion(_ text: ArraySlice<UInt8>) throws(LoopbackHTTPParseError) -> LoopbackHTTPVersion {
        let bytes = Array(text)
        guard bytes.count == 8, bytes.starts(with: Array("HTTP/".utf8)), bytes[6] == UInt8(ascii: "."),
            let major = digit(bytes[5]), let minor = digit(bytes[7])
        else { throw .malformedRequestLine }
        guard major == 1, minor <= 1 else { throw .unsupportedVersion }
        return LoopbackHTTPVersion(major: major, minor: minor)
    }

    private static func parseHeader(_ line: ArraySlice<UInt8>) throws(LoopbackHTTPParseError) -> LoopbackHTTPHeader {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedHeader }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw .malformedHeader }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else { throw .malformedHeader }
        return LoopbackHTTPHeader(ascii(name), String(decoding: value, as: UTF8.self))
    }

    private static func contentLength(
        of request: LoopbackHTTPRequest, limits: LoopbackHTTPLimits
    ) throws(LoopbackHTTPParseError) -> Int {
        guard request.headers(named: "Transfer-Encoding").isEmpty else { throw .unsupportedTransferEncoding }
        let values = request.headers(named: "Content-Length")
        guard let first = values.first else { return 0 }
        guard values.allSatisfy({ $0 == first }), !first.isEmpty, first.count <= 18,
            first.utf8.allSatisfy({ digit($0) != nil }), let length = Int(first)
        else { throw .invalidContentLength }
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge }
        return length
    }

    // MARK: Characters

    /// A `tchar` of RFC 9110 §5.6.2: the characters of methods and header names.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// A plausible `Host` value: host name or address characters, an optional port; no spaces.
    private static func isValidHost(_ host: String) -> Bool {
        !host.isEmpty
            && host.utf8.allSatisfy { byte in
                isTokenByte(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[")
                    || byte == UInt8(ascii: "]")
            }
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func ascii(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
