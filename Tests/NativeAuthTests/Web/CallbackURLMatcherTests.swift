import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Callback URL matching", .hangLimit)
struct CallbackURLMatcherTests {
    private func matches(_ url: String, _ redirect: String) -> Bool {
        guard let url = URL(string: url), let redirect = URL(string: redirect) else { return false }
        return CallbackURLMatcher.matches(url, redirectURI: redirect)
    }

    @Test(
        "callbacks that match their redirect URI",
        arguments: [
            ("http://127.0.0.1:5000/callback?code=a&state=b", "http://127.0.0.1:5000/callback"),
            ("HTTP://LOCALHOST:5000/callback?code=a", "http://localhost:5000/callback"),
            ("http://example.com/cb", "http://example.com:80/cb"),
            ("https://example.com:443/cb#code=a", "https://example.com/cb"),
            ("https://example.com?code=a", "https://example.com/"),
            ("com.example.app:/oauth2redirect?code=a", "com.example.app:/oauth2redirect"),
            ("msauth.com.example://auth?code=a", "MSAUTH.com.example://auth"),
            ("http://127.0.0.1:5000/callback?code=a", "http://127.0.0.1:5000/callback?extra=1"),
        ])
    func matching(url: String, redirect: String) {
        #expect(matches(url, redirect))
    }

    @Test(
        "callbacks that do not match",
        arguments: [
            ("http://127.0.0.1:5001/callback?code=a", "http://127.0.0.1:5000/callback"),
            ("https://127.0.0.1:5000/callback", "http://127.0.0.1:5000/callback"),
            ("http://localhost:5000/callback", "http://127.0.0.1:5000/callback"),
            ("http://127.0.0.1:5000/callback/", "http://127.0.0.1:5000/callback"),
            ("http://127.0.0.1:5000/Callback", "http://127.0.0.1:5000/callback"),
            ("http://127.0.0.1:5000/callbackx", "http://127.0.0.1:5000/callback"),
            ("http://127.0.0.1:5000/", "http://127.0.0.1:5000/callback"),
            ("com.example.evil:/oauth2redirect", "com.example.app:/oauth2redirect"),
            ("https://example.com.evil.test/cb", "https://example.com/cb"),
        ])
    func notMatching(url: String, redirect: String) {
        #expect(!matches(url, redirect))
    }
}
