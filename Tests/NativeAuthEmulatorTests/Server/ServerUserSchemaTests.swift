import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// `POST /users` takes every setting of `EmulatedUser`, and refuses what it does not know.
@Suite("Emulator server: the users the control API creates", .hangLimit)
struct ServerUserSchemaTests {
    /// A body with every member, each away from its default.
    static let fullBody = #"""
        {"username":"kit@contoso.com","password":"Kit-Passw0rd-1","attributes":{"displayName":"Kit","city":"Oslo"},
         "mfaMethods":[{"id":"sms-1","channel":"sms","address":"+15551234567"}],
         "requiresMethodRegistration":true,"passwordHistory":["Old-Passw0rd-1","Older-Passw0rd-1"],
         "requiresBrowser":true}
        """#

    @Test("a body with every member makes the same user as EmulatedUser's initializer")
    func everyMember() async throws {
        let served = try ServedTenant()
        let created = try await served.control("POST", "/users", Self.fullBody)
        #expect(created.status == 201)
        let expected = EmulatedUser(
            username: "kit@contoso.com", password: "Kit-Passw0rd-1",
            attributes: ["displayName": "Kit", "city": "Oslo"],
            mfaMethods: [EmulatedAuthMethod(id: "sms-1", channel: "sms", address: "+15551234567")],
            requiresMethodRegistration: true, passwordHistory: ["Old-Passw0rd-1", "Older-Passw0rd-1"],
            requiresBrowser: true)
        #expect(served.tenant.user(named: "kit@contoso.com") == expected)

        // What the API shows of it: every setting, and no password.
        #expect(created["requiresBrowser"] as? Bool == true)
        #expect(created["requiresMethodRegistration"] as? Bool == true)
        #expect(created["passwordHistoryCount"] as? Int == 2)
        #expect(created["hasPassword"] as? Bool == true)
        #expect(!created.text.contains("Passw0rd"))
        let read = try await served.control("GET", "/users/kit@contoso.com")
        #expect(read.text == created.text)
        await served.server.stop()
    }

    /// Each member alone, against the default user of that name: only that member moves.
    @Test(
        "each member alone sets that setting",
        arguments: [
            (#""password":"Only-Passw0rd-1""#, EmulatedUser(username: "one@contoso.com", password: "Only-Passw0rd-1")),
            (
                #""attributes":{"surname":"One"}"#,
                EmulatedUser(username: "one@contoso.com", attributes: ["surname": "One"])
            ),
            (
                #""mfaMethods":[{"id":"e1","channel":"email","address":"b@contoso.com"}]"#,
                EmulatedUser(
                    username: "one@contoso.com",
                    mfaMethods: [EmulatedAuthMethod(id: "e1", channel: "email", address: "b@contoso.com")])
            ),
            (
                #""requiresMethodRegistration":true"#,
                EmulatedUser(username: "one@contoso.com", requiresMethodRegistration: true)
            ),
            (
                #""passwordHistory":["Was-Passw0rd-1"]"#,
                EmulatedUser(username: "one@contoso.com", passwordHistory: ["Was-Passw0rd-1"])
            ),
            (#""requiresBrowser":true"#, EmulatedUser(username: "one@contoso.com", requiresBrowser: true)),
            (#""password":null,"requiresBrowser":false"#, EmulatedUser(username: "one@contoso.com")),
        ])
    func oneMember(member: String, expected: EmulatedUser) async throws {
        let served = try ServedTenant()
        let created = try await served.control("POST", "/users", #"{"username":"one@contoso.com",\#(member)}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(served.tenant.user(named: "one@contoso.com") == expected)
        await served.server.stop()
    }

    @Test("a browser-only user made over HTTP is sent to the browser, and a password history is refused on reset")
    func membersTakeEffect() async throws {
        let served = try ServedTenant()
        let body = #"{"username":"bo@contoso.com","password":"Bo-Passw0rd-1","requiresBrowser":true}"#
        #expect(try await served.control("POST", "/users", body).status == 201)
        let client = try served.client()
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "bo@contoso.com", password: "Bo-Passw0rd-1"))
        }
        #expect(error.isBrowserRequired)

        let history =
            #"{"username":"hal@contoso.com","password":"Hal-Passw0rd-2","passwordHistory":["Hal-Passw0rd-1"]}"#
        #expect(try await served.control("POST", "/users", history).status == 201)
        guard
            case .codeRequired(let state, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: "hal@contoso.com"))
        else {
            Issue.record("the reset did not ask for a code")
            return
        }
        let code = try #require(served.tenant.lastCode(sentTo: "hal@contoso.com"))
        let passwordState = try await state.submitCode(code)
        let reused = try await #require(throws: PasswordRequiredError.self) {
            try await passwordState.submitPassword("Hal-Passw0rd-1")
        }
        #expect(reused.passwordPolicyViolation == .recentlyUsed)
        await served.server.stop()
    }

    @Test(
        "an unknown member is refused with 400, naming it, and no user is made",
        arguments: [
            (#"{"username":"x@contoso.com","requiresBrowsr":true}"#, "requiresBrowsr"),
            (#"{"username":"x@contoso.com","colour":"red","size":2}"#, "colour, size"),
            (
                #"{"username":"x@contoso.com","mfaMethods":[{"id":"e","channel":"email","address":"a@b.c","primary":true}]}"#,
                "mfaMethods[0].primary"
            ),
        ])
    func unknownMembers(body: String, named: String) async throws {
        let served = try ServedTenant()
        let refused = try await served.control("POST", "/users", body)
        #expect(refused.status == 400)
        #expect(refused.error == "invalid_request")
        let message = try #require(refused["message"] as? String)
        #expect(message.contains("does not know: \(named)"), "\(message)")
        #expect(served.tenant.user(named: "x@contoso.com") == nil)
        await served.server.stop()
    }

    @Test(
        "a member of the wrong type is refused with 400, naming it",
        arguments: [
            (#""username":7"#, "username"),
            (#""username":"x@contoso.com","password":1234"#, "password"),
            (#""username":"x@contoso.com","password":"""#, "password"),
            (#""username":"x@contoso.com","attributes":["a"]"#, "attributes"),
            (#""username":"x@contoso.com","attributes":{"city":1}"#, "attributes.city"),
            (#""username":"x@contoso.com","mfaMethods":{}"#, "mfaMethods"),
            (#""username":"x@contoso.com","mfaMethods":["sms"]"#, "mfaMethods[0]"),
            (#""username":"x@contoso.com","mfaMethods":[{"id":"e","channel":"email"}]"#, "mfaMethods[0].address"),
            (#""username":"x@contoso.com","requiresMethodRegistration":"yes""#, "requiresMethodRegistration"),
            (#""username":"x@contoso.com","passwordHistory":"old""#, "passwordHistory"),
            (#""username":"x@contoso.com","passwordHistory":["ok",3]"#, "passwordHistory[1]"),
            (#""username":"x@contoso.com","requiresBrowser":1"#, "requiresBrowser"),
        ])
    func wrongTypes(members: String, named: String) async throws {
        let served = try ServedTenant()
        let refused = try await served.control("POST", "/users", "{\(members)}")
        #expect(refused.status == 400)
        let message = try #require(refused["message"] as? String)
        #expect(message.hasPrefix(named + " "), "\(message)")
        #expect(served.tenant.user(named: "x@contoso.com") == nil)
        await served.server.stop()
    }
}
