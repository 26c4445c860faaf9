import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Sign-up end to end on the emulator", .hangLimit)
struct SignUpEmulatorTests {
    let harness = EmulatorHarness()
    static let newUser = "new.user@example.com"

    func codeState(
        _ parameters: SignUpParameters = SignUpParameters(username: newUser), client: NativeAuthClient? = nil
    )
        async throws -> SignUpCodeRequiredState
    {
        let result = try await (client ?? harness.client).signUp(parameters)
        guard case .codeRequired(let state, let sentTo, let channel, let length) = result else {
            throw TestFailure("expected codeRequired")
        }
        #expect(sentTo.contains("***"))
        #expect(channel == .email)
        #expect(length == 8)
        return state
    }

    @Test func codeThenPasswordThenAttributesThenSignedInWithOneRequest() async throws {
        harness.tenant.configure {
            $0.requiredSignUpAttributes = [
                EmulatedRequiredAttribute(name: "displayName"),
                EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}"),
            ]
        }
        let state = try await codeState()
        do {
            _ = try await state.submitCode("00000000")
        } catch {
            #expect(error.isInvalidCode)
        }
        let afterCode = try await state.submitCode(harness.code(for: Self.newUser))
        guard case .passwordRequired(let passwordState) = afterCode else { throw TestFailure("expected password") }
        do {
            _ = try await passwordState.submitPassword("short")
            Issue.record("expected a policy error")
        } catch {
            #expect(error.isInvalidPassword)
            #expect(error.passwordPolicyViolation == .tooShort)
        }
        let afterPassword = try await passwordState.submitPassword(EmulatorHarness.password)
        guard case .attributesRequired(let required, let attributesState) = afterPassword else {
            throw TestFailure("expected attributes")
        }
        #expect(Set(required.map(\.name)) == ["displayName", "postalCode"])
        #expect(required.first { $0.name == "postalCode" }?.regex == "[0-9]{4}")
        do {
            _ = try await attributesState.submitAttributes(["displayName": "New User", "postalCode": "ABC"])
            Issue.record("expected invalid attributes")
        } catch {
            #expect(error.isInvalidAttributes)
            #expect(error.invalidAttributes == ["postalCode"])
        }
        var attributes = UserAttributes()
        attributes.displayName = "New User"
        attributes.postalCode = "0150"
        let done = try await attributesState.submitAttributes(attributes)
        guard case .completed(let signInState) = done else { throw TestFailure("expected completed") }
        #expect(harness.tenant.user(named: Self.newUser)?.attributes["postalCode"] == "0150")

        let before = harness.tenant.receivedRequests.count
        guard case .completed(let account) = try await signInState.signIn(scopes: ["api://demo/read"]) else {
            throw TestFailure("expected signed in")
        }
        #expect(harness.tenant.receivedRequests.count == before + 1)
        let last = try #require(harness.tenant.receivedRequests.last)
        #expect(formFields(last).contains("grant_type=continuation_token"))
        #expect(formFields(last).contains("username=\(Self.newUser)"))
        #expect(account.account.username == Self.newUser)
        #expect(account.account.claims.name == "New User")
    }

    @Test func passwordAndAttributesUpFront() async throws {
        let state = try await codeState(
            SignUpParameters(username: Self.newUser, password: EmulatorHarness.password, attributes: ["city": "Oslo"]))
        guard case .completed(let signIn) = try await state.submitCode(harness.code(for: Self.newUser)) else {
            throw TestFailure("expected completed")
        }
        #expect(harness.tenant.user(named: Self.newUser)?.attributes["city"] == "Oslo")
        guard case .completed = try await signIn.signIn() else { throw TestFailure("expected signed in") }
    }

    @Test func passwordlessSignUpWhenTheAppOnlyOffersCodes() async throws {
        let client = harness.makeClient(challengeTypes: [.oob])
        let state = try await codeState(client: client)
        guard case .completed = try await state.submitCode(harness.code(for: Self.newUser)) else {
            throw TestFailure("expected completed")
        }
        #expect(harness.tenant.user(named: Self.newUser)?.password == nil)
    }

    @Test func userAlreadyExists() async throws {
        do {
            _ = try await harness.client.signUp(SignUpParameters(username: "ada@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isUserAlreadyExists)
        }
    }

    @Test(arguments: [
        ("short", PasswordPolicyViolation.tooShort), (String(repeating: "Aa1!", count: 65), .tooLong),
        ("alllowercaseletters", .tooWeak),
    ])
    func passwordPolicyAtStart(password: String, violation: PasswordPolicyViolation) async throws {
        do {
            _ = try await harness.client.signUp(SignUpParameters(username: Self.newUser, password: password))
            Issue.record("expected a policy error")
        } catch {
            #expect(error.isInvalidPassword)
            #expect(error.passwordPolicyViolation == violation)
        }
    }

    @Test func attributesInvalidAtStartIsAResult() async throws {
        harness.tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]+")]
        }
        let result = try await harness.client.signUp(
            SignUpParameters(username: Self.newUser, attributes: ["postalCode": "x"]))
        guard case .attributesInvalid(let names) = result else { throw TestFailure("expected attributesInvalid") }
        #expect(names == ["postalCode"])
    }

    @Test func unencodableAttributesFailBeforeAnyRequest() async throws {
        for attributes: UserAttributes in [
            ["bad name": "x"], ["": "x"], ["weight": .double(.nan)], ["n": .double(.infinity)],
        ] {
            do {
                _ = try await harness.client.signUp(SignUpParameters(username: Self.newUser, attributes: attributes))
                Issue.record("expected an error")
            } catch {
                #expect(error.isInvalidAttributes)
                #expect(error.invalidAttributes.count == 1)
            }
        }
        #expect(harness.tenant.receivedRequests.isEmpty)
    }

    @Test func attributesEncodeAsOneJSONObject() throws {
        var attributes: UserAttributes = [
            "displayName": "Ada \"The\" Countess", "age": 36, "newsletter": true, "score": 1.5,
        ]
        attributes["extension_0123abcd_loyaltyNumber"] = "X-1"
        guard case .success(let json) = attributes.encoded() else { throw TestFailure("expected success") }
        #expect(
            json
                == #"{"age":36,"displayName":"Ada \"The\" Countess","extension_0123abcd_loyaltyNumber":"X-1","newsletter":true,"score":1.5}"#
        )
        #expect(!attributes.description.contains("Countess"))
    }

    @Test func resendAndSpentState() async throws {
        let state = try await codeState()
        let fresh = try await state.resendCode()
        do {
            _ = try await state.submitCode("1")
        } catch {
            #expect(error.isStateAlreadyUsed)
        }
        guard case .passwordRequired = try await fresh.submitCode(harness.code(for: Self.newUser)) else {
            throw TestFailure("expected password")
        }
    }

    @Test func emptyInputSendsNothing() async throws {
        let before = harness.tenant.receivedRequests.count
        do {
            _ = try await harness.client.signUp(SignUpParameters(username: ""))
        } catch {
            #expect(error.isInvalidUsername)
        }
        do {
            _ = try await harness.client.signUp(SignUpParameters(username: Self.newUser, password: ""))
        } catch {
            #expect(error.isInvalidPassword)
        }
        #expect(harness.tenant.receivedRequests.count == before)
    }

    @Test func expiredFlow() async throws {
        let state = try await codeState()
        harness.clock.advance(by: 601)
        let code = try harness.code(for: Self.newUser)
        do {
            _ = try await state.submitCode(code)
        } catch {
            #expect(error.isFlowExpired)
        }
    }

    @Test func signUpThenSignOutThenSignInAgain() async throws {
        let state = try await codeState(SignUpParameters(username: Self.newUser, password: EmulatorHarness.password))
        guard case .completed(let after) = try await state.submitCode(harness.code(for: Self.newUser)),
            case .completed(let account) = try await after.signIn()
        else { throw TestFailure("expected signed in") }
        await account.signOut()
        let again = try await harness.client.signIn(
            SignInParameters(username: Self.newUser, password: EmulatorHarness.password))
        guard case .completed = again else { throw TestFailure("expected signed in again") }
    }
}

@Suite("Sign-up: server answers decode to the right outcome", .hangLimit)
struct SignUpWireTests {
    let transport = ScriptedTransport()
    var client: NativeAuthClient {
        NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
    }

    func codeState() async throws -> SignUpCodeRequiredState {
        transport.then("signup/v1.0/start", .token("ct1"))
        transport.then("signup/v1.0/challenge", .oob("ct2"))
        guard case .codeRequired(let state, _, _, _) = try await client.signUp(SignUpParameters(username: "u@x.y"))
        else {
            throw TestFailure("expected code")
        }
        return state
    }

    @Test func verificationRequired() async throws {
        let state = try await codeState()
        transport.then(
            "signup/v1.0/continue",
            .error("verification_required", extra: "\"unverified_attributes\":[{\"name\":\"email\"}]"))
        do {
            _ = try await state.submitCode("1")
        } catch {
            #expect(error.details.kind == .verificationRequired)
        }
    }

    @Test func successWithoutTokenStillCompletes() async throws {
        let state = try await codeState()
        transport.then("signup/v1.0/continue", .json(200, "{}"))
        guard case .completed(let after) = try await state.submitCode("1") else {
            throw TestFailure("expected completed")
        }
        #expect(!after.isSignInAvailable)
        do {
            _ = try await after.signIn()
            Issue.record("sign-in after sign-up has no token")
        } catch {
            #expect(error.isSignInUnavailable)
        }
        #expect(transport.remaining == 0)
    }

    @Test func credentialRequiredChallengesForThePassword() async throws {
        let state = try await codeState()
        transport.then("signup/v1.0/continue", .error("credential_required", codes: [55103], token: "ct3"))
        transport.then("signup/v1.0/challenge", .password("ct4"))
        guard case .passwordRequired(let password) = try await state.submitCode("1") else {
            throw TestFailure("expected password")
        }
        #expect(formFields(transport.requests.last!).contains("continuation_token=ct3"))
        transport.then("signup/v1.0/continue", .error("invalid_grant", suberror: "password_banned", token: "ct5"))
        do {
            _ = try await password.submitPassword("password1")
        } catch {
            #expect(error.passwordPolicyViolation == .banned)
        }
        transport.then("signup/v1.0/continue", .token("ct6"))
        _ = try await password.submitPassword("Better-Passw0rd")
        #expect(formFields(transport.requests.last!).contains("continuation_token=ct5"))
    }

    @Test(arguments: [
        ("password_too_weak", PasswordPolicyViolation.tooWeak), ("password_recently_used", .recentlyUsed),
        ("password_is_invalid", .invalid), ("password_new_kind", .other("password_new_kind")),
    ])
    func everyPasswordSuberror(suberror: String, violation: PasswordPolicyViolation) async throws {
        transport.then("signup/v1.0/start", .error("invalid_grant", suberror: suberror))
        do {
            _ = try await client.signUp(SignUpParameters(username: "u@x.y", password: "x"))
        } catch {
            #expect(error.passwordPolicyViolation == violation)
        }
    }

    @Test func attributesRequiredDecodesRequiredAttributes() async throws {
        let state = try await codeState()
        transport.then(
            "signup/v1.0/continue",
            .error(
                "attributes_required", codes: [55106], token: "ct3",
                extra:
                    "\"required_attributes\":[{\"name\":\"city\",\"type\":\"string\",\"required\":true,\"options\":{\"regex\":\"^[A-Z].*\"}},{\"name\":\"age\",\"type\":\"int\",\"required\":false},{\"bogus\":1}]"
            ))
        guard case .attributesRequired(let required, _) = try await state.submitCode("1") else {
            throw TestFailure("expected attributes")
        }
        #expect(
            required == [
                RequiredAttribute(name: "city", type: "string", isRequired: true, regex: "^[A-Z].*"),
                RequiredAttribute(name: "age", type: "int", isRequired: false),
            ])
    }
}
