import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Request builder pins every request's form body and headers", .hangLimit)
struct RequestBuilderTests {
    let builder = RequestBuilder(configuration: testConfiguration(capabilities: [.registrationRequired, .mfaRequired]))
    let id = UUID(uuidString: "11111111-2222-3333-4444-555555555555") ?? UUID()
    let token = Secret("ct-1")

    func body(_ call: WireCall) -> String {
        String(decoding: builder.request(for: call, correlationId: id).body ?? Data(), as: UTF8.self)
    }

    @Test func headers() throws {
        let request = builder.request(for: .signInInitiate(username: "a@b.c"), correlationId: id)
        #expect(request.method == "POST")
        #expect(
            request.url.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/oauth2/v2.0/initiate")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(request.header("accept") == "application/json")
        #expect(request.header("client-request-id") == "11111111-2222-3333-4444-555555555555")
        #expect(request.header("return-client-request-id") == "true")
        #expect(request.header("x-client-SKU") == "swift-native-auth")
        #expect(request.header("x-client-Ver") == RequestBuilder.sdkVersion)
        #expect(request.header("x-client-OS")?.isEmpty == false)
    }

    @Test func customHeadersAreSent() throws {
        let configuration = try NativeAuthConfiguration(
            clientId: "c", tenantSubdomain: "contoso", customHeaders: ["x-trace": "abc"])
        let request = RequestBuilder(configuration: configuration).request(
            for: .signInInitiate(username: "u"), correlationId: id)
        #expect(request.header("x-trace") == "abc")
    }

    @Test func everyEndpointURL() {
        for endpoint in Endpoint.allCases {
            #expect(
                builder.url(for: endpoint).absoluteString
                    == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/" + endpoint.rawValue)
        }
    }

    @Test func signInBodies() {
        #expect(
            body(.signInInitiate(username: "ada+x@example.com"))
                == "client_id=client-1&username=ada%2Bx%40example.com&challenge_type=oob%20password%20redirect&capabilities=mfa_required%20registration_required"
        )
        #expect(
            body(.signInChallenge(continuationToken: token, methodId: nil))
                == "client_id=client-1&continuation_token=ct-1&challenge_type=oob%20password%20redirect")
        #expect(
            body(.signInChallenge(continuationToken: token, methodId: "m1"))
                == "client_id=client-1&continuation_token=ct-1&challenge_type=oob%20password%20redirect&id=m1")
        #expect(body(.signInIntrospect(continuationToken: token)) == "client_id=client-1&continuation_token=ct-1")
        #expect(
            body(.tokenWithPassword(continuationToken: token, username: "u@x.y", password: Secret("p w&="), scopes: []))
                == "client_id=client-1&continuation_token=ct-1&grant_type=password&username=u%40x.y&password=p%20w%26%3D&scope=openid%20profile%20offline_access&client_info=true"
        )
        #expect(
            body(.tokenWithCode(continuationToken: token, code: Secret("1234"), scopes: ["api://x/read"]))
                == "client_id=client-1&continuation_token=ct-1&grant_type=oob&oob=1234&scope=api%3A%2F%2Fx%2Fread%20openid%20profile%20offline_access&client_info=true"
        )
        #expect(
            body(.tokenWithMFACode(continuationToken: token, code: Secret("5678"), scopes: []))
                == "client_id=client-1&continuation_token=ct-1&grant_type=mfa_oob&oob=5678&scope=openid%20profile%20offline_access&client_info=true"
        )
        #expect(
            body(.tokenWithContinuationToken(continuationToken: token, username: "u", scopes: ["openid", "a"]))
                == "client_id=client-1&continuation_token=ct-1&grant_type=continuation_token&username=u&scope=openid%20a%20profile%20offline_access&client_info=true"
        )
        #expect(
            body(.tokenRefresh(refreshToken: Secret("rt"), scopes: []))
                == "client_id=client-1&grant_type=refresh_token&refresh_token=rt&scope=openid%20profile%20offline_access&client_info=true"
        )
    }

    @Test func signUpBodies() {
        #expect(
            body(.signUpStart(username: "u", password: Secret("pw"), attributes: "{\"city\":\"Oslo\"}"))
                == "client_id=client-1&username=u&challenge_type=oob%20password%20redirect&password=pw&attributes=%7B%22city%22%3A%22Oslo%22%7D&capabilities=mfa_required%20registration_required"
        )
        #expect(
            body(.signUpChallenge(continuationToken: token))
                == "client_id=client-1&continuation_token=ct-1&challenge_type=oob%20password%20redirect")
        #expect(
            body(.signUpContinueWithCode(continuationToken: token, code: Secret("1")))
                == "client_id=client-1&continuation_token=ct-1&grant_type=oob&oob=1")
        #expect(
            body(.signUpContinueWithPassword(continuationToken: token, password: Secret("p")))
                == "client_id=client-1&continuation_token=ct-1&grant_type=password&password=p")
        #expect(
            body(.signUpContinueWithAttributes(continuationToken: token, attributes: "{}"))
                == "client_id=client-1&continuation_token=ct-1&grant_type=attributes&attributes=%7B%7D")
    }

    @Test func registrationAndResetBodies() {
        #expect(body(.registerIntrospect(continuationToken: token)) == "client_id=client-1&continuation_token=ct-1")
        #expect(
            body(.registerChallenge(continuationToken: token, target: "a@b.c", channel: "email"))
                == "client_id=client-1&continuation_token=ct-1&challenge_type=oob&challenge_target=a%40b.c&challenge_channel=email"
        )
        #expect(
            body(.registerContinueWithCode(continuationToken: token, code: Secret("9")))
                == "client_id=client-1&continuation_token=ct-1&grant_type=oob&oob=9")
        #expect(
            body(.registerContinueWithToken(continuationToken: token))
                == "client_id=client-1&continuation_token=ct-1&grant_type=continuation_token")
        #expect(
            body(.resetPasswordStart(username: "u"))
                == "client_id=client-1&username=u&challenge_type=oob%20redirect&capabilities=mfa_required%20registration_required"
        )
        #expect(
            body(.resetPasswordChallenge(continuationToken: token))
                == "client_id=client-1&continuation_token=ct-1&challenge_type=oob%20redirect")
        #expect(
            body(.resetPasswordContinue(continuationToken: token, code: Secret("1")))
                == "client_id=client-1&continuation_token=ct-1&grant_type=oob&oob=1")
        #expect(
            body(.resetPasswordSubmit(continuationToken: token, newPassword: Secret("n p")))
                == "client_id=client-1&continuation_token=ct-1&new_password=n%20p")
        #expect(
            body(.resetPasswordPollCompletion(continuationToken: token))
                == "client_id=client-1&continuation_token=ct-1")
    }

    @Test func challengeTypesFollowConfigurationAndAlwaysEndInRedirect() {
        let oobOnly = RequestBuilder(configuration: testConfiguration(challengeTypes: [.oob]))
        #expect(oobOnly.challengeTypeField == "oob redirect")
        let passwordOnly = RequestBuilder(configuration: testConfiguration(challengeTypes: [.password]))
        #expect(passwordOnly.challengeTypeField == "password redirect")
        #expect(RequestBuilder(configuration: testConfiguration()).capabilitiesField == nil)
    }

    @Test func noCapabilitiesFieldWhenNoneDeclared() {
        let plain = RequestBuilder(configuration: testConfiguration())
        let text = String(
            decoding: plain.request(for: .signInInitiate(username: "u"), correlationId: id).body ?? Data(),
            as: UTF8.self)
        #expect(!text.contains("capabilit"))
    }

    @Test func scopesAreMergedAndDeduplicated() {
        #expect(RequestBuilder.scopeField([]) == "openid profile offline_access")
        #expect(
            RequestBuilder.scopeField(["User.Read", "openid", "User.Read"]) == "User.Read openid profile offline_access"
        )
        #expect(RequestBuilder.scopeField(["a b"]) == "a b openid profile offline_access")
    }
}
