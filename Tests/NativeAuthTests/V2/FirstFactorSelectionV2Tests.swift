import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Choosing the first factor over native authentication V2, on a tenant that offers every first
/// factor (``EmulatorSettings/nativeAuthV2FirstFactorChoice``): the user chooses with
/// ``SignInParameters/selectsAuthMethod``, and the SDK chooses as MSAL does otherwise.
@Suite("Sign-in over V2: choosing the first factor", .hangLimit)
struct FirstFactorSelectionV2Tests {
    let harness: EmulatorHarness = {
        let harness = EmulatorHarness()
        harness.tenant.configure { $0.nativeAuthV2FirstFactorChoice = true }
        return harness
    }()

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    func selection(_ username: String = "ada@example.com") async throws
        -> (AuthMethodSelectionRequiredState, [AuthMethod])
    {
        var parameters = SignInParameters(username: username)
        parameters.selectsAuthMethod = true
        guard
            case .authMethodSelectionRequired(let state, let methods) = try await V2Clients.client(harness).signIn(
                parameters)
        else { throw TestFailure("expected authMethodSelectionRequired") }
        return (state, methods)
    }

    @Test func theUserChoosesAnEmailCode() async throws {
        let (state, methods) = try await selection()
        #expect(methods.map(\.challengeType) == ["password", "oob"], "the server's order")
        #expect(methods[1].channelTargetType == .email)
        #expect(methods[1].loginHint.contains("***"))
        #expect(state.authMethods == methods)
        guard case .codeRequired(let code, _, .email, 8) = try await state.selectAuthMethod(methods[1]) else {
            throw TestFailure("expected codeRequired")
        }
        guard case .completed(let account) = try await code.submitCode(harness.code(for: "ada@example.com")) else {
            throw TestFailure("expected completed")
        }
        #expect(account.account.username == "ada@example.com")
        let authority = "/contoso.onmicrosoft.com"
        // authorize-challenge, signin/start, the chosen method's challenge, verify, resume, token.
        #expect(paths.count == 6)
        #expect(paths[2].hasPrefix("POST \(authority)/api/v2.0/auth/methods/email/"))
        #expect(paths[2].hasSuffix("/challenge"))
        let spent = try await #require(throws: SignInStartError.self) { try await state.selectAuthMethod(methods[1]) }
        #expect(spent.isStateAlreadyUsed)
    }

    @Test func theUserChoosesThePassword() async throws {
        let (state, methods) = try await selection()
        guard case .passwordRequired(let password) = try await state.selectAuthMethod(methods[0]) else {
            throw TestFailure("expected passwordRequired")
        }
        guard case .completed = try await password.submitPassword(EmulatorHarness.password) else {
            throw TestFailure("expected completed")
        }
    }

    @Test func aMethodTheServerDidNotOfferSendsNothingAndKeepsTheState() async throws {
        let (state, methods) = try await selection()
        let sent = harness.tenant.receivedRequests.count
        let error = try await #require(throws: SignInStartError.self) {
            try await state.selectAuthMethod(AuthMethod(id: "other", channelTargetType: .sms, loginHint: "+1***"))
        }
        #expect(error.isStateStillUsable)
        #expect(harness.tenant.receivedRequests.count == sent)
        guard case .codeRequired = try await state.selectAuthMethod(methods[1]) else {
            throw TestFailure("expected codeRequired")
        }
    }

    @Test func withoutSelectionTheSDKChoosesAsMSALDoes() async throws {
        let client = V2Clients.client(harness)
        // No password given: the first code method.
        guard
            case .codeRequired(_, _, .email, _) = try await client.signIn(SignInParameters(username: "ada@example.com"))
        else { throw TestFailure("expected codeRequired") }
        // A password given: the password method, verified at once.
        let signedIn = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        guard case .completed = signedIn else { throw TestFailure("expected completed") }
    }

    @Test func aSingleMethodIsNotOfferedForChoice() async throws {
        var parameters = SignInParameters(username: "grace@example.com")
        parameters.selectsAuthMethod = true
        guard case .codeRequired = try await V2Clients.client(harness).signIn(parameters) else {
            throw TestFailure("a passwordless user has one first factor: no choice")
        }
    }

    @Test func theDelegateFormReportsTheChosenStep() async throws {
        let (state, methods) = try await selection()
        let recorder = await FlowDelegateRecorder()
        state.selectAuthMethod(methods[1], delegate: recorder)
        let call = await recorder.call(number: 1)
        #expect(call?.method == "onSignInCodeRequired")
        #expect(call?.onMainQueue == true)
    }

    /// A start offering no first factor the SDK can take (here, one of an unknown type with the
    /// answer's own `challenge` link too) asks for the browser, as MSAL for iOS refuses it; no
    /// `challenge` is posted.
    @Test(arguments: [false, true])
    func noFirstFactorTheSDKCanTakeAsksForTheBrowser(selects: Bool) async throws {
        let transport = RewritingTransport(harness.tenant, after: "/signin/start") { object in
            guard var embedded = object["_embedded"] as? [String: Any],
                var method = (embedded["methods"] as? [[String: Any]])?.first
            else { return }
            method["type"] = "voice"
            embedded["methods"] = [method]
            object["_embedded"] = embedded
            var links = object["_links"] as? [String: Any] ?? [:]
            links["challenge"] = (method["_links"] as? [String: Any])?["challenge"]
            object["_links"] = links
        }
        var parameters = SignInParameters(username: "ada@example.com")
        parameters.selectsAuthMethod = selects
        let error = try await #require(throws: SignInStartError.self) {
            try await V2Clients.client(harness, transport: transport).signIn(parameters)
        }
        #expect(error.isBrowserRequired)
        #expect(transport.requests.count == 2, "authorize-challenge and signin/start only")
        // The error carries what the browser needs: the same user signs in there.
        let account = try await error.continueInBrowser(
            redirectURI: try #require(URL(string: "msauth.com.example.app://auth")),
            using: EmulatedBrowser(tenant: harness.tenant, password: EmulatorHarness.password))
        #expect(account.account.username == "ada@example.com")
    }

    @Test func theDescriptionNamesTheMethodsOnly() async throws {
        let (state, _) = try await selection()
        for text in ["\(state)", String(reflecting: state)] {
            #expect(text.hasPrefix("AuthMethodSelectionRequiredState(methods:"))
            #expect(!text.contains("http"))
            #expect(!text.contains("/api/"))
        }
    }
}
