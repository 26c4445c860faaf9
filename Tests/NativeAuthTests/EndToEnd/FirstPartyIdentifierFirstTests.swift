import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A provider whose profile asks for the username first and the password after it
/// (`password_required`), and the follow-ups a challenge state sends: the password and a profile's
/// own parameters, with the newest `auth_session`, none of them ever shown.
@Suite("First-party sign-in: a follow-up that asks for the password", .hangLimit)
struct FirstPartyIdentifierFirstTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }

    init() {
        fixture.tenant.configure { $0.authorizationChallengeIdentifierFirst = true }
    }

    func passwordState(_ client: WebAuthClient, username: String) async throws -> FirstPartyChallengeState {
        let result = try await client.signInFirstParty(username: username, scopes: ["offline_access"])
        guard case .challengeRequired(let state) = result else {
            throw TestFailure("expected a challenge, got \(result)")
        }
        return state
    }

    func value(_ name: String, ofChallenge index: Int) throws -> String? {
        try fixture.challengeForm(index).first { $0.name == name }?.value
    }

    @Test func thePasswordAskedForIsSubmittedWithTheNewestAuthSessionThenTheCode() async throws {
        let client = try fixture.client()
        let state = try await passwordState(client, username: "alan@example.com")
        #expect(state.isPasswordRequired && !state.isCodeRequired)
        #expect(state.parameters["password_required"]?.boolValue == true)
        #expect(try value("password", ofChallenge: 0) == nil, "the first request names the user only")

        let empty = try await #require(throws: WebSignInError.self) { try await state.submitPassword("") }
        #expect(empty.isInvalidParameters)
        #expect(fixture.paths.count == 2, "nothing sent for an empty password")
        let wrong = try await #require(throws: WebSignInError.self) { try await state.submitPassword("Wr0ng-Horse") }
        #expect(wrong.isInvalidGrant, "\(wrong)")
        guard case .challengeRequired(let code) = try await state.submitPassword(EmulatorHarness.password) else {
            throw TestFailure("expected the second factor")
        }
        #expect(code.isCodeRequired && !code.isPasswordRequired)
        guard
            case .completed(let account) = try await code.submitCode(
                try fixture.harness.code(for: "alan.backup@example.com"))
        else { throw TestFailure("expected a sign-in") }
        #expect(account.account.username == "alan@example.com")
        #expect(
            fixture.paths == [
                fixture.discoveryPath, fixture.challengePath, fixture.challengePath, fixture.challengePath,
                fixture.challengePath, fixture.tokenPath, fixture.keysPath,
            ])

        // §5.3.1: each follow-up carries the newest auth_session; the password goes as `password`.
        let first = try #require(try value("auth_session", ofChallenge: 1))
        #expect(try value("auth_session", ofChallenge: 2) == first, "a wrong password keeps the session")
        #expect(try value("password", ofChallenge: 2) == EmulatorHarness.password)
        let newest = try #require(try value("auth_session", ofChallenge: 3))
        #expect(newest != first, "the second factor's answer brought a new auth_session")
        #expect(try value("password", ofChallenge: 3) == nil)
        let again = try await #require(throws: WebSignInError.self) { try await state.submitPassword("x") }
        #expect(again.isStateAlreadyUsed)

        // The password is a secret: in no log record, description, reflection, dump or error.
        var rendered = fixture.harness.logger.records.map { "\($0)" }
        rendered += ["\(state)", String(reflecting: state), "\(wrong)", wrong.debugDescription, "\(code)"]
        var dumped = ""
        dump(state, to: &dumped)
        dump(code, to: &dumped)
        rendered.append(dumped)
        for text in rendered {
            for secret in [EmulatorHarness.password, "Wr0ng-Horse", first, newest] {
                #expect(!text.contains(secret), "a secret in: \(text.prefix(200))")
            }
        }
        #expect("\(state)".contains("isPasswordRequired: true"))
    }

    @Test func submitSendsThePasswordAndAProfilesOwnParametersAndRefusesOnlyWhatTheSDKOwns() async throws {
        let client = try fixture.client()
        let state = try await passwordState(client, username: "ada@example.com")
        let owned = [
            "response_type", "CLIENT_ID", "client_secret", "Auth_Session", "scope", "code_challenge",
            "code_challenge_method", "username", "redirect_uri", "state", "nonce", "request_uri", "client-request-id",
        ]
        for name in owned {
            let error = try await #require(throws: WebSignInError.self) {
                try await state.submit(["password": EmulatorHarness.password, name: "x"])
            }
            #expect(error.isInvalidParameters, "\(name)")
        }
        #expect(fixture.paths.count == 2, "nothing sent for a refused name")
        let result = try await state.submit(["password": EmulatorHarness.password, "x_device_name": "Ada's phone"])
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(account.account.username == "ada@example.com")
        let form = try fixture.challengeForm(1)
        #expect(form.map(\.name) == ["response_type", "client_id", "auth_session", "password", "x_device_name"])
        #expect(form.first { $0.name == "password" }?.value == EmulatorHarness.password)
        #expect(!fixture.harness.logger.records.contains { "\($0)".contains("Ada's phone") }, "values are not logged")
    }

    @Test func anAnswerWithoutAnAuthSessionKeepsTheOneSentLast() async throws {
        let client = try fixture.client()
        let state = try await passwordState(client, username: "ada@example.com")
        tenant.force(
            .raw(
                status: 403, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error":"insufficient_authorization","password_required":true}"#.utf8)),
            on: .authorizationChallenge)
        guard case .challengeRequired(let again) = try await state.submitPassword("Wr0ng-Horse") else {
            throw TestFailure("expected the forced challenge")
        }
        #expect(again.isPasswordRequired)
        guard case .completed = try await again.submitPassword(EmulatorHarness.password) else {
            throw TestFailure("expected a sign-in")
        }
        let sent = try #require(try value("auth_session", ofChallenge: 1))
        #expect(try value("auth_session", ofChallenge: 2) == sent, "§5.3.1: the client keeps it until a new one comes")
    }

    @Test func thePasswordThroughTheDelegate() async throws {
        let client = try fixture.client()
        let state = try await passwordState(client, username: "ada@example.com")
        let wrong = FirstPartyRecorder()
        state.submitPassword("Wr0ng-Horse", delegate: wrong)
        guard case .error(let error) = try await wrong.call() else { throw TestFailure("expected an error") }
        #expect(error.isInvalidGrant, "a wrong password; the state stays usable")
        let right = FirstPartyRecorder()
        state.submitPassword(EmulatorHarness.password, delegate: right)
        guard case .completed(let account) = try await right.call() else { throw TestFailure("expected a sign-in") }
        #expect(account.account.username == "ada@example.com")
    }

    /// `insufficient_authorization` and `redirect_to_web` are read at any status but a 2xx: -04's
    /// 403 (§5.2.2.1), the 400 of §5.2.2, the 401 of earlier revisions' examples, and others.
    @Test(arguments: [400, 401, 403, 422])
    func theDraftsErrorCodesAreReadAtAnyErrorStatus(status: Int) async throws {
        let client = try fixture.client()
        for (error, extra) in [("insufficient_authorization", #","password_required":true"#), ("redirect_to_web", "")] {
            tenant.force(
                .raw(
                    status: status, headers: ["Content-Type": "application/json"],
                    body: Data(#"{"error":"\#(error)","auth_session":"s-1"\#(extra)}"#.utf8)),
                on: .authorizationChallenge)
            let result = try await client.signInFirstParty(username: "ada@example.com")
            switch (error, result) {
            case ("insufficient_authorization", .challengeRequired(let state)): #expect(state.isPasswordRequired)
            case ("redirect_to_web", .browserRequired): break
            default: Issue.record("\(status) \(error): \(result)")
            }
        }
        // A 2xx must carry the code (§5.2.1): an error in one is not read as the draft's.
        tenant.force(
            .raw(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error":"insufficient_authorization"}"#.utf8)),
            on: .authorizationChallenge)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signInFirstParty(username: "ada@example.com")
        }
        #expect(error.isUnexpectedResponse)
    }
}
