/// The size bounds a loopback server holds a request to, and the body framings it accepts.
package struct LoopbackHTTPLimits: Sendable, Equatable {
    /// The longest request line, without its CRLF; longer is `414 URI Too Long`.
    package var maxRequestLineBytes: Int
    /// The longest head (request line, header lines and their CRLFs); longer is `431`. The
    /// trailer section of a chunked body is held to it too.
    package var maxHeadBytes: Int
    /// The most header lines; more is `431`.
    package var maxHeaderCount: Int
    /// The largest body (a `Content-Length`, or the decoded chunks); larger is `413 Content Too Large`.
    package var maxBodyBytes: Int
    /// Whether a body may come as `Transfer-Encoding: chunked`; when `false` any
    /// `Transfer-Encoding` is `501 Not Implemented`.
    package var acceptsChunkedBodies: Bool

    /// Bounds; by default 8 KiB request line and head, 100 header lines, 64 KiB body, no chunked bodies.
    package init(
        maxRequestLineBytes: Int = 8 * 1024, maxHeadBytes: Int = 8 * 1024, maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 64 * 1024, acceptsChunkedBodies: Bool = false
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.acceptsChunkedBodies = acceptsChunkedBodies
    }
}

/// Why bytes are not a request, and the status to answer with before closing the connection.
package enum LoopbackHTTPParseError: Error, Sendable, Equatable {
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
    /// Both `Transfer-Encoding` and `Content-Length`: a request smuggling attempt, or a broken client.
    case conflictingFraming
    /// A chunked body whose chunk sizes, extensions or line ends are not as RFC 9112 §7.1 says.
    case malformedChunk
    /// The connection ended in the middle of a request.
    case truncated

    /// The status to answer with.
    package var status: Int {
        switch self {
        case .requestLineTooLong: 414
        case .headTooLarge, .tooManyHeaders: 431
        case .unsupportedVersion: 505
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .invalidLineEnding, .malformedRequestLine, .invalidMethod, .invalidTarget, .malformedHeader,
            .invalidHost, .invalidContentLength, .conflictingFraming, .malformedChunk, .truncated:
            400
        }
    }

    /// A one-line explanation for the body of the error response; it names limits, never the
    /// request's content.
    package func explanation(limits: LoopbackHTTPLimits) -> String {
        switch self {
        case .requestLineTooLong: "The request line is longer than \(limits.maxRequestLineBytes) bytes."
        case .headTooLarge: "The request's header section is larger than \(limits.maxHeadBytes) bytes."
        case .tooManyHeaders: "The request has more than \(limits.maxHeaderCount) header lines."
        case .invalidLineEnding: "Every line of the request head must end with CRLF."
        case .malformedRequestLine: "The request line is not 'METHOD TARGET HTTP/1.1'."
        case .invalidMethod: "The method is not a valid token."
        case .invalidTarget: "The request target must be a path ('/…') or '*'."
        case .unsupportedVersion: "Only HTTP/1.0 and HTTP/1.1 are served."
        case .malformedHeader: "A header line is malformed."
        case .invalidHost: "An HTTP/1.1 request needs exactly one valid Host header."
        case .invalidContentLength: "Content-Length is not one valid number."
        case .bodyTooLarge: "The request body is larger than \(limits.maxBodyBytes) bytes."
        case .unsupportedTransferEncoding:
            limits.acceptsChunkedBodies
                ? "Only the chunked transfer coding is supported." : "Transfer-Encoding is not supported."
        case .conflictingFraming: "A request must not have both Transfer-Encoding and Content-Length."
        case .malformedChunk: "The chunked body is malformed."
        case .truncated: "The connection ended in the middle of the request."
        }
    }

    /// The plain-text response for this error: the status and ``explanation(limits:)``.
    package func response(limits: LoopbackHTTPLimits) -> LoopbackHTTPResponse {
        .text(status, "\(status) \(LoopbackHTTPResponse.reasonPhrase(status)): \(explanation(limits: limits))\n")
    }
}

/// What the bytes received so far on a connection hold.
package enum LoopbackHTTPParseResult: Sendable, Equatable {
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
/// a single `Content-Length`. `Transfer-Encoding` is refused unless the limits accept chunked
/// bodies; then only `chunked` alone is taken (RFC 9112 §7.1: hexadecimal sizes, extensions
/// ignored, trailer lines checked and dropped), and never together with `Content-Length`. The
/// target must be in origin form (`/path?query`) or `*`. Empty lines before the request line are
/// skipped, as RFC 9112 §2.2 allows.
package enum LoopbackHTTPParser {
    private static let cr: UInt8 = 13
    private static let lf: UInt8 = 10

    /// Parses the request at the start of `bytes`.
    package static func parse(
        _ bytes: [UInt8], limits: LoopbackHTTPLimits = LoopbackHTTPLimits()
    ) -> LoopbackHTTPParseResult {
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
                if try isChunked(request, limits: limits) {
                    guard let (body, end) = try chunkedBody(bytes, from: bodyStart, limits: limits) else {
                        return .incomplete
                    }
                    request.body = body
                    return .complete(request, consumed: end)
                }
                let length = try contentLength(of: request, limits: limits)
                guard bytes.count - bodyStart >= length else { return .incomplete }
                request.body = Array(bytes[bodyStart..<(bodyStart + length)])
                return .complete(request, consumed: bodyStart + length)
            } catch {
                return .invalid(error)
            }
        }
    }

    /// Whether `bytes` hold the whole head of an HTTP/1.1 request that asks for `100 Continue`
    /// (`Expect: 100-continue`) before it sends its body. Call it when ``parse(_:limits:)`` says
    /// the request is incomplete: the server then answers `100 Continue` once.
    package static func expectsContinue(_ bytes: [UInt8], limits: LoopbackHTTPLimits = LoopbackHTTPLimits()) -> Bool {
        var start = 0
        while start + 1 < bytes.count, bytes[start] == cr, bytes[start + 1] == lf, start < limits.maxHeadBytes {
            start += 2
        }
        guard case .success(let (lines, _)?) = scanHead(bytes, from: start, limits: limits),
            let request = try? makeRequest(lines: lines, bytes: bytes, limits: limits), request.version == .http11
        else { return false }
        return request.headers(named: "Expect").contains { $0.lowercased() == "100-continue" }
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
        let values = request.headers(named: "Content-Length")
        guard let first = values.first else { return 0 }
        guard values.allSatisfy({ $0 == first }), !first.isEmpty, first.count <= 18,
            first.utf8.allSatisfy({ digit($0) != nil }), let length = Int(first)
        else { throw .invalidContentLength }
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge }
        return length
    }

    // MARK: Chunked bodies

    /// Whether the body is chunked; refuses every other `Transfer-Encoding`, and one beside a
    /// `Content-Length`.
    private static func isChunked(
        _ request: LoopbackHTTPRequest, limits: LoopbackHTTPLimits
    ) throws(LoopbackHTTPParseError) -> Bool {
        let codings = request.headers(named: "Transfer-Encoding")
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { coding in
                String(coding.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                    .lowercased()
            }
        guard !codings.isEmpty else { return false }
        guard limits.acceptsChunkedBodies, codings == ["chunked"] else { throw .unsupportedTransferEncoding }
        guard request.headers(named: "Content-Length").isEmpty else { throw .conflictingFraming }
        guard request.version == .http11 else { throw .conflictingFraming }
        return true
    }

    /// The longest chunk-size line accepted (size and extensions).
    private static let maxChunkLineBytes = 1024

    /// The decoded body of the chunks starting at `start` and the index after the trailer
    /// section; `nil` while the last chunk or its trailers have not all arrived.
    private static func chunkedBody(
        _ bytes: [UInt8], from start: Int, limits: LoopbackHTTPLimits
    ) throws(LoopbackHTTPParseError) -> (body: [UInt8], end: Int)? {
        var body: [UInt8] = []
        var index = start
        while true {
            guard let lineEnd = try lineEnd(in: bytes, from: index, maximum: maxChunkLineBytes) else { return nil }
            let size = try chunkSize(bytes[index..<lineEnd])
            guard size <= limits.maxBodyBytes - body.count else { throw .bodyTooLarge }
            index = lineEnd + 2
            if size == 0 { break }
            guard bytes.count - index >= size + 2 else { return nil }
            body += bytes[index..<(index + size)]
            index += size
            guard bytes[index] == cr, bytes[index + 1] == lf else { throw .malformedChunk }
            index += 2
        }
        // The trailer section: header lines, checked and dropped, then an empty line.
        let trailerStart = index
        var trailers = 0
        while true {
            let remaining = limits.maxHeadBytes - (index - trailerStart)
            guard remaining > 0 else { throw .headTooLarge }
            guard let lineEnd = try lineEnd(in: bytes, from: index, maximum: remaining, tooLong: .headTooLarge)
            else { return nil }
            if lineEnd == index { return (body, lineEnd + 2) }
            _ = try parseHeader(bytes[index..<lineEnd])
            trailers += 1
            guard trailers <= limits.maxHeaderCount else { throw .tooManyHeaders }
            index = lineEnd + 2
        }
    }

    /// The index of the CR of the CRLF ending the line at `start`; `nil` when it has not arrived.
    private static func lineEnd(
        in bytes: [UInt8], from start: Int, maximum: Int, tooLong: LoopbackHTTPParseError = .malformedChunk
    ) throws(LoopbackHTTPParseError) -> Int? {
        var index = start
        while index < bytes.count {
            if index - start > maximum { throw tooLong }
            switch bytes[index] {
            case lf:
                throw .invalidLineEnding
            case cr:
                guard index + 1 < bytes.count else { return nil }
                guard bytes[index + 1] == lf else { throw .invalidLineEnding }
                return index
            default:
                index += 1
            }
        }
        if index - start > maximum { throw tooLong }
        return nil
    }

    /// The size of a chunk-size line: 1 to 8 hexadecimal digits, then nothing or extensions
    /// (`;name=value`, ignored) after optional spaces or tabs.
    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(LoopbackHTTPParseError) -> Int {
        let digits = line.prefix { hexDigit($0) != nil }
        guard !digits.isEmpty, digits.count <= 8 else { throw .malformedChunk }
        var rest = line.dropFirst(digits.count)
        while let first = rest.first, first == 0x20 || first == 0x09 { rest = rest.dropFirst() }
        if let first = rest.first {
            guard first == UInt8(ascii: ";"), rest.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw .malformedChunk
            }
        }
        return digits.reduce(0) { $0 * 16 + (hexDigit($1) ?? 0) }
    }

    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
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
