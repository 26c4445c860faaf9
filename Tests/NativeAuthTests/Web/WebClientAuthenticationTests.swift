import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Web client authentication: public, client_secret_basic, client_secret_post", .hangLimit)
struct WebClientAuthenticationTests {
    static let form: FormBody = {
        var form = FormBody()
        form.add("grant_type", "refresh_token")
        form.add("refresh_token", "r")
        form.add("client_id", "app")
        form.add("scope", "openid")
        return form
    }()

    static func text(_ form: FormBody) -> String { String(decoding: form.encoded, as: UTF8.self) }

    @Test func eachMethodPutsTheClientWhereItBelongs() {
        let none = WebClientAuthentication.none
        #expect(Self.text(none.authenticated(Self.form, clientId: "app")) == Self.text(Self.form))
        #expect(none.authorizationHeader(clientId: "app") == nil)

        let post = WebClientAuthentication.clientSecretPost("s&1")
        #expect(
            Self.text(post.authenticated(Self.form, clientId: "app"))
                == "grant_type=refresh_token&refresh_token=r&client_id=app&client_secret=s%261&scope=openid")
        #expect(post.authorizationHeader(clientId: "app") == nil)

        let basic = WebClientAuthentication.clientSecretBasic("s")
        #expect(
            Self.text(basic.authenticated(Self.form, clientId: "app"))
                == "grant_type=refresh_token&refresh_token=r&scope=openid")
        #expect(
            basic.authorizationHeader(clientId: "app")?.reveal == "Basic " + Data("app:s".utf8).base64EncodedString())

        // A form without client_id gets it at the end; a stray client_secret never goes through.
        var bare = FormBody()
        bare.add("token", "t")
        bare.add("client_secret", "stray")
        #expect(Self.text(none.authenticated(bare, clientId: "app")) == "token=t&client_id=app")
        #expect(Self.text(post.authenticated(bare, clientId: "app")) == "token=t&client_id=app&client_secret=s%261")
    }

    /// RFC 6749 §2.3.1 and Appendix B: both parts form-urlencoded (a space is `+`, `:` and
    /// non-ASCII are percent-encoded), then joined with `:` and base64-encoded.
    @Test(arguments: [
        ("app", "secret", "app:secret"),
        ("my client:1", "p@ss word/é", "my+client%3A1:p%40ss+word%2F%C3%A9"),
        ("a+b", "100%", "a%2Bb:100%25"),
        ("id", "", "id:"),
    ])
    func basicCredentialsAreFormEncodedBeforeBase64(clientId: String, secret: String, encoded: String) throws {
        let header = try #require(
            WebClientAuthentication.clientSecretBasic(secret).authorizationHeader(clientId: clientId))
        #expect(header.reveal == "Basic " + Data(encoded.utf8).base64EncodedString())
    }

    @Test func theSecretIsNeverShown() {
        let secret = "hunter2-secret"
        for value in [WebClientAuthentication.clientSecretBasic(secret), .clientSecretPost(secret)] {
            var dumped = ""
            dump(value, to: &dumped)
            var configuration = WebAuthConfiguration()
            configuration.requestTimeout = TestBounds.requestDeadline
            configuration.clientAuthentication = value
            var configurationDump = ""
            dump(configuration, to: &configurationDump)
            for text in [
                "\(value)", String(reflecting: value), dumped, configurationDump,
                "\(Mirror(reflecting: value).children.map(\.value))",
            ] {
                #expect(!text.contains(secret), "\(text)")
            }
            let request = value.request(
                url: URL(string: "https://login.example.com/token")!, form: Self.form, clientId: "app",
                correlationId: nil)
            var requestDump = ""
            dump(request, to: &requestDump)
            for text in ["\(request)", String(reflecting: request), requestDump] {
                #expect(
                    !text.contains(secret) && !text.contains("Basic ") && !text.contains("refresh_token=r"), "\(text)")
            }
        }
        #expect(WebClientAuthentication.clientSecretBasic(secret).methodName == "client_secret_basic")
        #expect(WebClientAuthentication.clientSecretPost(secret).methodName == "client_secret_post")
        #expect(WebClientAuthentication.none.methodName == "none")
    }

    @Test func aRequestDescriptionKeepsTheHarmlessParts() {
        let request = HTTPRequest(
            method: "GET", url: URL(string: "https://api.example.com/items?access_token=abc#frag")!,
            headers: ["Accept": "application/json", "Cookie": "sid=1", "authorization": "Bearer abc"])
        let text = request.description
        #expect(text.contains("GET https://api.example.com/items?<redacted>"))
        #expect(text.contains("Accept: application/json"))
        #expect(text.contains("Cookie: <redacted>") && text.contains("authorization: <redacted>"))
        #expect(!text.contains("abc") && !text.contains("sid=1") && !text.contains("frag"))
    }
}
