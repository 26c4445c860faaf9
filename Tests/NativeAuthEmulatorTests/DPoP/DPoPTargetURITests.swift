import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// The `htu` comparison form (RFC 9449 §4.3 step 9, with RFC 3986 §6.2.2 and §6.2.3).
@Suite("DPoP: htu normalization", .hangLimit)
struct DPoPTargetURITests {
    @Test(
        "equivalent URIs normalize alike",
        arguments: [
            ("HTTP://Example.COM/a", "http://example.com/a"),
            ("http://example.com:80/a", "http://example.com/a"),
            ("https://example.com:443/a", "https://example.com/a"),
            ("https://example.com:/a", "https://example.com/a"),
            ("http://127.0.0.1:8080/t/token", "http://127.0.0.1:8080/t/token"),
            ("http://[::1]:8080/t", "http://[::1]:8080/t"),
            ("https://example.com", "https://example.com/"),
            ("https://example.com/%7euser/%2fx", "https://example.com/~user/%2Fx"),
            ("https://example.com/a/./b/../c", "https://example.com/a/c"),
            ("https://example.com/a/b/c/./../../g", "https://example.com/a/g"),
            ("https://example.com/../a", "https://example.com/a"),
            ("https://example.com/a/..", "https://example.com/"),
        ])
    func normalizes(_ uri: String, _ expected: String) {
        #expect(DPoPTargetURI.normalized(uri) == expected)
    }

    @Test(
        "what is not an absolute http(s) URI without query or fragment is nothing",
        arguments: [
            "token", "/a/token", "ftp://example.com/a", "https:/example.com/a", "https://user@example.com/a",
            "https://example.com:99999/a", "https://example.com:8a/a", "https://example.com/a?b",
            "https://example.com/a#b",
            "https://example.com/a b", "https://example.com/%zz", "https://example.com/%4", "https://[::1/a",
            "https://ex%41mple.com/a", "", "https://",
        ])
    func refuses(_ uri: String) {
        #expect(DPoPTargetURI.normalized(uri) == nil)
    }

    @Test("dot segments are removed as RFC 3986 §5.2.4 does")
    func dotSegments() {
        #expect(DPoPTargetURI.removingDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(DPoPTargetURI.removingDotSegments("mid/content=5/../6") == "mid/6")
        #expect(DPoPTargetURI.removingDotSegments("/./.././") == "/")
    }
}
