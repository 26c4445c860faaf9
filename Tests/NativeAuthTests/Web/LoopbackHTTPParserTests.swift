import Foundation
import NativeAuthTestSupport
import Testing

@testable import LoopbackHTTP
@testable import NativeAuth

@Suite("Loopback HTTP request parser", .hangLimit)
struct LoopbackHTTPParserTests {
    private func parse(_ text: String, limits: LoopbackHTTPLimits = LoopbackHTTPLimits()) -> LoopbackHTTPParseResult {
        LoopbackHTTPParser.parse(Array(text.utf8), limits: limits)
    }

    private func request(_ text: String) throws -> (LoopbackHTTPRequest, Int) {
        guard case .complete(let request, let consumed) = parse(text) else {
            throw ParserTestFailure("not a complete request: \(parse(text))")
        }
        return (request, consumed)
    }

    private func error(_ text: String, limits: LoopbackHTTPLimits = LoopbackHTTPLimits()) -> LoopbackHTTPParseError? {
        guard case .invalid(let error) = parse(text, limits: limits) else { return nil }
        return error
    }

    @Test("a simple GET: method, target, path, query, version, headers")
    func simpleGet() throws {
        let text = "GET /callback?code=abc&state=x%20y HTTP/1.1\r\nHost: 127.0.0.1:5000\r\nAccept: */*\r\n\r\n"
        let (request, consumed) = try request(text)
        #expect(consumed == text.utf8.count)
        #expect(request.method == "GET")
        #expect(request.target == "/callback?code=abc&state=x%20y")
        #expect(request.path == "/callback")
        #expect(request.query == "code=abc&state=x%20y")
        #expect(request.version == .http11)
        #expect(request.header("host") == "127.0.0.1:5000")
        #expect(request.header("ACCEPT") == "*/*")
        #expect(request.body.isEmpty)
        #expect(request.wantsKeepAlive)
    }

    @Test("a target without query has a nil query; an empty query is empty")
    func queries() throws {
        #expect(try request("GET /a HTTP/1.1\r\nHost: h\r\n\r\n").0.query == nil)
        #expect(try request("GET /a? HTTP/1.1\r\nHost: h\r\n\r\n").0.query == "")
    }

    @Test("percent-encoded paths are kept as sent and decoded on request")
    func percentEncodedPath() throws {
        let (request, _) = try request("GET /call%62ack/%E2%9C%93?x=%2F HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(request.path == "/call%62ack/%E2%9C%93")
        #expect(request.decodedPath == "/callback/✓")
        let (bad, _) = try self.request("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(bad.decodedPath == nil)
    }

    @Test("header values are trimmed; names keep their case; Connection: close ends keep-alive")
    func headerValues() throws {
        let (request, _) = try request(
            "GET / HTTP/1.1\r\nHost: h\r\nX-Thing: \t spaced value \t\r\nConnection: Close\r\n\r\n")
        #expect(request.headers[1] == LoopbackHTTPHeader("X-Thing", "spaced value"))
        #expect(!request.wantsKeepAlive)
    }

    @Test("HTTP/1.0 needs no Host and closes unless keep-alive is asked for")
    func http10() throws {
        let (request, _) = try request("GET / HTTP/1.0\r\n\r\n")
        #expect(request.version == .http10)
        #expect(!request.wantsKeepAlive)
        #expect(try self.request("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").0.wantsKeepAlive)
    }

    @Test("a body of Content-Length bytes is read; bytes after it are left for the next request")
    func bodyAndPipelining() throws {
        let text = "POST /form HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n"
        let (request, consumed) = try request(text)
        #expect(request.body == Array("hello".utf8))
        #expect(consumed == text.utf8.count - "GET / HTTP/1.1\r\n".utf8.count)
    }

    @Test("empty lines before the request line are skipped")
    func leadingEmptyLines() throws {
        let (request, consumed) = try request("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(request.path == "/")
        #expect(consumed == 4 + "GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8.count)
    }

    @Test("unusual but valid method tokens are accepted; the handler decides about them")
    func weirdMethods() throws {
        #expect(try request("BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n").0.method == "BREW")
        #expect(try request("get / HTTP/1.1\r\nHost: h\r\n\r\n").0.method == "get")
        #expect(try request("M-SEARCH * HTTP/1.1\r\nHost: h\r\n\r\n").0.target == "*")
    }

    @Test(
        "partial requests are incomplete, never an error",
        arguments: [
            "", "\r", "\r\n", "G", "GET / HTTP/1.1", "GET / HTTP/1.1\r", "GET / HTTP/1.1\r\nHost: h\r\n",
            "GET / HTTP/1.1\r\nHost: h\r\n\r", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab",
        ])
    func incomplete(text: String) {
        #expect(parse(text) == .incomplete)
    }

    @Test(
        "lines must end in CRLF",
        arguments: [
            "GET / HTTP/1.1\nHost: h\n\n", "GET / HTTP/1.1\r\nHost: h\n\r\n", "GET / HTTP/1.1\rHost: h\r\n\r\n",
            "\nGET / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nHost: h\r\n\n",
        ])
    func lineEndings(text: String) {
        #expect(error(text) == .invalidLineEnding)
        #expect(error(text)?.status == 400)
    }

    @Test(
        "malformed request lines are 400",
        arguments: [
            ("GET  / HTTP/1.1\r\n\r\n", LoopbackHTTPParseError.malformedRequestLine),
            ("GET /\r\n\r\n", .malformedRequestLine),
            ("GET / HTTP/1.1 extra\r\n\r\n", .malformedRequestLine),
            ("GET / HTTX/1.1\r\n\r\n", .malformedRequestLine),
            ("GET / HTTP/1.10\r\n\r\n", .malformedRequestLine),
            ("G(T / HTTP/1.1\r\n\r\n", .invalidMethod),
            (" / HTTP/1.1\r\n\r\n", .invalidMethod),
            ("GET callback HTTP/1.1\r\n\r\n", .invalidTarget),
            ("GET http://example.com/ HTTP/1.1\r\n\r\n", .invalidTarget),
            ("GET /a#frag HTTP/1.1\r\n\r\n", .invalidTarget),
            ("GET /caf\u{E9} HTTP/1.1\r\n\r\n", .invalidTarget),
            ("GET /a\u{7F} HTTP/1.1\r\n\r\n", .invalidTarget),
        ])
    func malformedRequestLines(text: String, expected: LoopbackHTTPParseError) {
        #expect(error(text) == expected)
        #expect(error(text)?.status == 400)
    }

    @Test("HTTP versions other than 1.0 and 1.1 are 505")
    func versions() {
        #expect(error("GET / HTTP/2.0\r\n\r\n") == .unsupportedVersion)
        #expect(error("GET / HTTP/0.9\r\n\r\n")?.status == 505)
    }

    @Test(
        "malformed header lines are 400",
        arguments: [
            "GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: h\r\nName : v\r\n\r\n", "GET / HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n",
        ])
    func malformedHeaders(text: String) {
        #expect(error(text) == .malformedHeader)
    }

    @Test("HTTP/1.1 needs exactly one valid Host")
    func host() {
        #expect(error("GET / HTTP/1.1\r\n\r\n") == .invalidHost)
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == .invalidHost)
        #expect(error("GET / HTTP/1.1\r\nHost: a b\r\n\r\n") == .invalidHost)
        #expect(error("GET / HTTP/1.1\r\nHost:\r\n\r\n") == .invalidHost)
    }

    @Test("a request line longer than the limit is 414, even before its end arrives")
    func longRequestLine() {
        let limits = LoopbackHTTPLimits(maxRequestLineBytes: 64, maxHeadBytes: 1024)
        let long = "GET /" + String(repeating: "a", count: 100)
        #expect(error(long, limits: limits) == .requestLineTooLong)
        #expect(error(long + " HTTP/1.1\r\n\r\n", limits: limits)?.status == 414)
        #expect(error("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\r\n")?.status == 414)
    }

    @Test("a head larger than 8 KiB is 431, even before its end arrives")
    func largeHead() {
        let big = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "b", count: 9000)
        #expect(error(big) == .headTooLarge)
        #expect(error(big + "\r\n\r\n")?.status == 431)
    }

    @Test("more header lines than the limit is 431")
    func tooManyHeaders() {
        let limits = LoopbackHTTPLimits(maxHeaderCount: 3)
        let text = "GET / HTTP/1.1\r\nHost: h\r\n" + (1...3).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        #expect(error(text, limits: limits) == .tooManyHeaders)
        #expect(error(text, limits: limits)?.status == 431)
    }

    @Test(
        "Content-Length must be one plain number within the limit; no Transfer-Encoding",
        arguments: [
            ("Content-Length: -1", LoopbackHTTPParseError.invalidContentLength),
            ("Content-Length: 1x", .invalidContentLength),
            ("Content-Length: +5", .invalidContentLength),
            ("Content-Length: 99999999999999999999999", .invalidContentLength),
            ("Content-Length: 1\r\nContent-Length: 2", .invalidContentLength),
            ("Content-Length: 70000", .bodyTooLarge),
            ("Transfer-Encoding: chunked", .unsupportedTransferEncoding),
        ])
    func contentLength(header: String, expected: LoopbackHTTPParseError) {
        #expect(error("POST / HTTP/1.1\r\nHost: h\r\n\(header)\r\n\r\n") == expected)
    }

    private static let chunked = LoopbackHTTPLimits(maxBodyBytes: 32, acceptsChunkedBodies: true)

    @Test("a chunked body is decoded: extensions ignored, trailers checked and dropped, the rest left over")
    func chunkedBody() throws {
        let text =
            "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "5;name=\"v\"\r\nhello\r\nA \t;ext\r\n, world!!!\r\n0\r\nX-Trailer: t\r\n\r\nGET /next"
        guard case .complete(let request, let consumed) = parse(text, limits: Self.chunked) else {
            throw ParserTestFailure("not complete: \(parse(text, limits: Self.chunked))")
        }
        #expect(String(decoding: request.body, as: UTF8.self) == "hello, world!!!")
        #expect(consumed == text.utf8.count - "GET /next".utf8.count)
        let empty = "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n000\r\n\r\n"
        guard case .complete(let emptyRequest, _) = parse(empty, limits: Self.chunked) else {
            throw ParserTestFailure("empty chunked body not complete")
        }
        #expect(emptyRequest.body.isEmpty)
    }

    @Test("every prefix of a chunked request is incomplete")
    func chunkedPrefixes() {
        let whole = Array(
            "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: 1\r\n\r\n".utf8)
        for end in 0..<whole.count {
            #expect(LoopbackHTTPParser.parse(Array(whole[..<end]), limits: Self.chunked) == .incomplete, "\(end)")
        }
    }

    @Test(
        "malformed or oversized chunked bodies are refused with their status",
        arguments: [
            ("Transfer-Encoding: chunked", "zz\r\nab\r\n0\r\n\r\n", LoopbackHTTPParseError.malformedChunk),
            ("Transfer-Encoding: chunked", "-1\r\n", .malformedChunk),
            ("Transfer-Encoding: chunked", "3 x\r\nabc\r\n0\r\n\r\n", .malformedChunk),
            ("Transfer-Encoding: chunked", "123456789\r\n", .malformedChunk),
            ("Transfer-Encoding: chunked", "3\r\nabcd\r\n0\r\n\r\n", .malformedChunk),
            ("Transfer-Encoding: chunked", "3\nabc", .invalidLineEnding),
            ("Transfer-Encoding: chunked", String(repeating: "1", count: 2000), .malformedChunk),
            ("Transfer-Encoding: chunked", "21\r\n", .bodyTooLarge),
            ("Transfer-Encoding: chunked", "10\r\n0123456789abcdef\r\n11\r\n", .bodyTooLarge),
            ("Transfer-Encoding: chunked", "0\r\nbad trailer\r\n\r\n", .malformedHeader),
            ("Transfer-Encoding: chunked\r\nContent-Length: 3", "3\r\nabc\r\n0\r\n\r\n", .conflictingFraming),
            ("Transfer-Encoding: gzip, chunked", "", .unsupportedTransferEncoding),
            ("Transfer-Encoding: chunked, chunked", "", .unsupportedTransferEncoding),
        ])
    func malformedChunks(headers: String, body: String, expected: LoopbackHTTPParseError) {
        let text = "POST /x HTTP/1.1\r\nHost: h\r\n\(headers)\r\n\r\n\(body)"
        #expect(error(text, limits: Self.chunked) == expected)
    }

    @Test("chunked bodies need HTTP/1.1; every error has a short explanation naming the limit")
    func chunkedVersionAndExplanations() {
        #expect(
            error("POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", limits: Self.chunked)
                == .conflictingFraming)
        let limits = LoopbackHTTPLimits(maxHeadBytes: 4096)
        let response = LoopbackHTTPParseError.headTooLarge.response(limits: limits)
        #expect(response.status == 431)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == "431 Request Header Fields Too Large: The request's header section is larger than 4096 bytes.\n")
        #expect(LoopbackHTTPParseError.malformedChunk.status == 400)
        #expect(LoopbackHTTPParseError.conflictingFraming.status == 400)
    }

    @Test("a whole HTTP/1.1 head with Expect: 100-continue asks for 100 Continue; nothing else does")
    func expectsContinue() {
        func expects(_ text: String) -> Bool { LoopbackHTTPParser.expectsContinue(Array(text.utf8)) }
        #expect(expects("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n\r\n"))
        #expect(!expects("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n"))
        #expect(!expects("POST /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"))
        #expect(!expects("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"))
        #expect(!expects("POST /x HTTP/1.1\r\nExpect: 100-continue\r\n\r\n"))  // no Host: not a request
    }

    @Test("header names match without regard to ASCII case, and only ASCII case")
    func headerNames() {
        let header = LoopbackHTTPHeader("Content-Type", "text/plain")
        #expect(header.isNamed("content-type"))
        #expect(header.isNamed("CONTENT-TYPE"))
        #expect(!header.isNamed("content-typ"))
        #expect(!header.isNamed("content-types"))
        #expect(!header.isNamed("content_type"))
        #expect(!header.isNamed(""))
        // Only letters fold: '@' and '`' differ by the same bit as 'A' and 'a'.
        #expect(!LoopbackHTTPHeader("x@", "").isNamed("x`"))
        #expect(!LoopbackHTTPHeader("K", "").isNamed("\u{212A}"))  // the Kelvin sign
        let request = LoopbackHTTPRequest(
            method: "GET", target: "/", version: .http11,
            headers: [.init("Connection", "Close"), .init("X-A", "1"), .init("x-a", "2")], body: [])
        #expect(request.headers(named: "X-a") == ["1", "2"])
        #expect(request.header("connection") == "Close")
        #expect(!request.wantsKeepAlive)
    }

    @Test("status codes of parse errors")
    func statuses() {
        #expect(LoopbackHTTPParseError.bodyTooLarge.status == 413)
        #expect(LoopbackHTTPParseError.unsupportedTransferEncoding.status == 501)
        #expect(LoopbackHTTPParseError.tooManyHeaders.status == 431)
        #expect(LoopbackHTTPParseError.truncated.status == 400)
    }

    @Test("arbitrary bytes never crash the parser, and every prefix of a request is incomplete")
    func robustness() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<200, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = LoopbackHTTPParser.parse(bytes)
        }
        let whole = Array("POST /x?y=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc".utf8)
        for end in 0..<whole.count {
            #expect(LoopbackHTTPParser.parse(Array(whole[..<end])) == .incomplete)
        }
    }

    @Test("responses: status line, headers, managed Content-Length and Connection, no header injection")
    func responses() {
        let response = LoopbackHTTPResponse(
            status: 404,
            headers: [LoopbackHTTPHeader("X-A", "one\r\nInjected: yes"), LoopbackHTTPHeader("Content-Length", "99")],
            body: Array("gone".utf8))
        let text = String(decoding: response.serialized(closeConnection: true), as: UTF8.self)
        #expect(
            text
                == "HTTP/1.1 404 Not Found\r\nX-A: oneInjected: yes\r\nContent-Length: 4\r\nConnection: close\r\n\r\ngone"
        )
        let head = String(decoding: response.serialized(closeConnection: false, omitBody: true), as: UTF8.self)
        #expect(head.hasSuffix("Connection: keep-alive\r\n\r\n"))
    }
}

struct ParserTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
