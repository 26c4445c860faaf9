import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Every V2 request, byte for byte, as the tables of Docs/NativeAuthV2.md say: "Step 1", "Step 2:
/// start a journey", "Interaction requests", "Step 3" and "Step 4".
@Suite("V2 requests: bodies, methods, URLs and headers", .hangLimit)
struct V2RequestTests {
    let builder = V2RequestBuilder(configuration: testConfiguration())
    let id = UUID(uuidString: "11111111-2222-3333-4444-555555555555") ?? UUID()
    let token = Secret("ct-1")
    static let base = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"

    func link(_ href: String = "/t/api/v2.0/x") throws -> V2Link { try builder.resolver.resolve(href) }

    func body(_ call: V2Call) -> String {
        String(decoding: builder.request(for: call, correlationId: id).body ?? Data(), as: UTF8.self)
    }

    // "Step 1: start authorization": form, `client_id` and nothing else.
    @Test func startAuthorization() {
        let request = builder.request(for: .startAuthorization, correlationId: id)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == Self.base + "/oauth2/v2.0/authorize-challenge")
        #expect(body(.startAuthorization) == "client_id=client-1")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
    }

    // "Step 3": `continuation_token` only, no `client_id`, to the fixed path.
    @Test func resumeAuthorization() {
        let call = V2Call.resumeAuthorization(continuationToken: Secret("ct/+= 1"))
        let request = builder.request(for: call, correlationId: id)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == Self.base + "/oauth2/v2.0/authorize-challenge")
        #expect(body(call) == "continuation_token=ct%2F%2B%3D%201")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
    }

    // "Step 2: start a journey": JSON, camelCase.
    @Test func journeyStarts() throws {
        let signIn = V2Call.startSignIn(
            try link("/t/api/v2.0/signin/start"), username: "a@b.c", continuationToken: token)
        #expect(body(signIn) == #"{"continuationToken":"ct-1","username":"a@b.c"}"#)
        #expect(
            builder.request(for: signIn, correlationId: id).url.absoluteString == Self.base + "/api/v2.0/signin/start")
        let signUp = V2Call.startSignUp(try link(), continuationToken: token)
        #expect(body(signUp) == #"{"continuationToken":"ct-1"}"#)
        let reset = V2Call.startResetPassword(try link(), username: "a\"b\\c\n", continuationToken: token)
        #expect(body(reset) == #"{"continuationToken":"ct-1","username":"a\"b\\c\n"}"#)
        for call in [signIn, signUp, reset] {
            let request = builder.request(for: call, correlationId: id)
            #expect(request.method == "POST")
            #expect(request.header("content-type") == "application/json")
        }
    }

    // "Interaction requests": one key per credential, never an overloaded one.
    @Test func interactions() throws {
        let l = try link()
        #expect(body(.challenge(l, continuationToken: token)) == #"{"continuationToken":"ct-1"}"#)
        #expect(body(.resend(l, continuationToken: token)) == #"{"continuationToken":"ct-1"}"#)
        #expect(body(.poll(l, continuationToken: token)) == #"{"continuationToken":"ct-1"}"#)
        #expect(
            body(.verifyCode(l, continuationToken: token, code: Secret("123456")))
                == #"{"continuationToken":"ct-1","otp":"123456"}"#)
        #expect(
            body(.verifyPassword(l, continuationToken: token, password: Secret("pw\u{1}é")))
                == #"{"continuationToken":"ct-1","password":"pw\u0001é"}"#)
        let update = V2Call.updatePassword(l, continuationToken: token, newPassword: Secret("n3w!"))
        #expect(body(update) == #"{"continuationToken":"ct-1","newPassword":"n3w!"}"#)
        #expect(builder.request(for: update, correlationId: id).method == "PUT")
        for call in [V2Call.challenge(l, continuationToken: token), .poll(l, continuationToken: token)] {
            #expect(builder.request(for: call, correlationId: id).method == "POST")
            #expect(builder.request(for: call, correlationId: id).url == l.url)
        }
    }

    @Test func submitAttributes() throws {
        let call = V2Call.submitAttributes(
            try link(), continuationToken: token,
            attributes: ["displayName": .string("Ada"), "age": .number(36), "newsletter": .bool(true)])
        #expect(
            body(call)
                == #"{"attributes":{"age":36,"displayName":"Ada","newsletter":true},"continuationToken":"ct-1"}"#)
        #expect(builder.body(for: call).fieldNames == ["attributes", "continuationToken"])
    }

    // "Step 4: the token exchange, and PKCE".
    @Test func tokenExchange() {
        let call = V2Call.exchangeCode(
            code: Secret("c&1"), scopes: ["openid offline_access", "openid", "api://x/y"], claims: nil)
        let request = builder.request(for: call, correlationId: id)
        #expect(request.url.absoluteString == Self.base + "/oauth2/v2.0/token")
        #expect(request.method == "POST")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(
            body(call)
                == "grant_type=authorization_code&code=c%261&client_id=client-1&client_info=true&scope=openid%20offline_access%20api%3A%2F%2Fx%2Fy"
        )
        #expect(
            body(.exchangeCode(code: Secret("c"), scopes: [], claims: nil))
                == "grant_type=authorization_code&code=c&client_id=client-1&client_info=true")
        #expect(
            body(.exchangeCode(code: Secret("c"), scopes: [" "], claims: #"{"a":1}"#))
                == "grant_type=authorization_code&code=c&client_id=client-1&client_info=true&claims=%7B%22a%22%3A1%7D")
        #expect(
            body(.exchangeCode(code: Secret("c"), scopes: [], claims: ""))
                == "grant_type=authorization_code&code=c&client_id=client-1&client_info=true")
    }

    // "Endpoints, methods, content types": the V1 headers, `Accept: application/json`.
    @Test func headersAreTheV1Ones() throws {
        let v1 = RequestBuilder(configuration: testConfiguration()).headers(correlationId: id)
        for call in [V2Call.startAuthorization, .challenge(try link(), continuationToken: token)] {
            let request = builder.request(for: call, correlationId: id)
            #expect(request.header("accept") == "application/json")
            #expect(request.header("client-request-id") == "11111111-2222-3333-4444-555555555555")
            #expect(request.header("return-client-request-id") == "true")
            #expect(request.header("x-client-SKU") == "swift-native-auth")
            #expect(request.header("x-client-Ver") == RequestBuilder.sdkVersion)
            #expect(request.header("x-client-OS") == v1["x-client-OS"])
            #expect(Set(request.headers.keys) == Set(v1.keys))
        }
        let configuration = try NativeAuthConfiguration(
            clientId: "c", tenantSubdomain: "contoso", customHeaders: ["x-trace": "abc"])
        let request = V2RequestBuilder(configuration: configuration).request(
            for: .startAuthorization, correlationId: id)
        #expect(request.header("x-trace") == "abc")
    }

    @Test func noRenderingOfACallShowsASecret() throws {
        let l = try link("/t/api/v2.0/x?session=q")
        let calls: [V2Call] = [
            .resumeAuthorization(continuationToken: Secret("SECRET-ct")),
            .verifyCode(l, continuationToken: Secret("SECRET-ct"), code: Secret("SECRET-otp")),
            .verifyPassword(l, continuationToken: Secret("SECRET-ct"), password: Secret("SECRET-pw")),
            .updatePassword(l, continuationToken: Secret("SECRET-ct"), newPassword: Secret("SECRET-new")),
            .exchangeCode(code: Secret("SECRET-code"), scopes: [], claims: nil),
        ]
        for call in calls {
            var dumped = ""
            dump(call, to: &dumped)
            for text in [
                "\(call)", String(reflecting: call), dumped, call.name, builder.body(for: call).fieldNames.joined(),
            ] {
                #expect(!text.contains("SECRET"), "\(text)")
            }
        }
    }

    @Test func callsNameTheirAnswer() throws {
        let l = try link()
        #expect(V2Call.startAuthorization.answerKind == .startAuthorization)
        #expect(V2Call.resumeAuthorization(continuationToken: token).answerKind == .resumeAuthorization)
        #expect(V2Call.exchangeCode(code: token, scopes: [], claims: nil).answerKind == .token)
        #expect(V2Call.verifyCode(l, continuationToken: token, code: token).answerKind == .interaction)
        #expect(V2Call.startSignUp(l, continuationToken: token).answerKind == .interaction)
    }
}
