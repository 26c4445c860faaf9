import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// A journey the SDK must show on the emulator, over Native Auth V2 or OAuth 2.0 for First-Party
/// Applications (the draft), with the requests it costs: the SDK's, and the browser's when one
/// finishes it. The titles are the rows of the docs' round-trip tables.
enum MustShowJourney: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case password = "V2: password sign-in"
    case passwordThenEmailCode = "V2: password, then an email code (MFA)"
    case smsWithResend = "V2: password, then an SMS code (MFA) with a resend"
    case smsRiskVerified = "V2: password, then an SMS code (MFA) after the phone's risk verification, with a resend"
    case firstFactorChoice = "V2: first factor chosen (an email code instead of the password)"
    case signUpWithAttributes = "V2: sign-up with attributes, then sign-in"
    case resetWithPolling = "V2: password reset with polling, then sign-in"
    case resetBySMS = "V2: password reset by SMS (the only recovery method), then sign-in"
    case resetChoosingSMS = "V2: password reset with the method chosen (SMS of email and SMS), then sign-in"
    case registration = "V2: a method registered (JIT), then sign-in"
    case webFallback = "V2: web fallback, finished in the browser"
    case draftPassword = "draft: password"
    case draftPasswordThenCode = "draft: password, then a one-time code (insufficient_authorization)"
    case draftRedirectToWeb = "draft: redirect_to_web, finished in the browser"
    case draftStepUp = "draft: password, then a step-up that continues the auth_session with a one-time code"
    case draftRefreshChallenge =
        "draft: password, then a refresh answered insufficient_authorization, then the one-time code"

    var testDescription: String { rawValue }

    var isDraft: Bool { rawValue.hasPrefix("draft:") }

    /// The row's title in its page's table: the name without `V2: ` or `draft: `.
    var title: String { String(rawValue.drop { $0 != ":" }.dropFirst(2)) }

    /// The requests the SDK sends, and the browser's (its sign-in page and form post).
    var roundTrips: (sdk: Int, browser: Int) {
        switch self {
        case .password: (5, 0)
        case .passwordThenEmailCode: (7, 0)
        case .smsWithResend: (8, 0)
        case .smsRiskVerified: (9, 0)
        case .firstFactorChoice: (6, 0)
        case .signUpWithAttributes: (6, 0)
        case .resetWithPolling: (10, 0)
        case .resetBySMS: (10, 0)
        case .resetChoosingSMS: (10, 0)
        case .registration: (7, 0)
        case .webFallback: (5, 2)
        case .draftPassword: (4, 0)
        case .draftPasswordThenCode: (5, 0)
        case .draftRedirectToWeb: (4, 2)
        case .draftStepUp: (7, 0)
        case .draftRefreshChallenge: (7, 0)
        }
    }
}

/// The must-show matrix: every journey, in process and over the emulator's HTTP server, ends where
/// it should with exactly the requests the docs' tables say.
@Suite("The must-show journeys, in process and over HTTP, with their round trips", .hangLimit)
struct MustShowMatrixTests {
    @Test(arguments: MustShowJourney.allCases, MatrixWire.allCases)
    func journey(_ journey: MustShowJourney, on wire: MatrixWire) async throws {
        let bed = try MatrixBed(wire) { settings in
            settings.authorizationChallengeEndpoint = journey.isDraft
            settings.nativeAuthV2FirstFactorChoice = journey == .firstFactorChoice
            switch journey {
            case .resetBySMS: settings.nativeAuthV2RecoveryMethods = .sms
            case .resetChoosingSMS: settings.nativeAuthV2RecoveryMethods = .emailAndSMS
            case .smsRiskVerified: settings.nativeAuthV2SMSRiskVerification = true
            default: break
            }
            if journey == .signUpWithAttributes {
                settings.requiredSignUpAttributes = [
                    EmulatedRequiredAttribute(name: "displayName"),
                    EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}"),
                ]
            }
        }
        do {
            let username = try await run(journey, on: bed)
            #expect(!username.isEmpty)
        } catch {
            await bed.stop()
            throw error
        }
        let expected = journey.roundTrips
        #expect(bed.counter.count == expected.sdk, "the SDK's requests \(wire.rawValue)")
        #expect(
            bed.received == expected.sdk + expected.browser,
            "the tenant's requests \(wire.rawValue): \(bed.tenant.receivedRequests.dropFirst(bed.start).map(\.url.path))"
        )
        await bed.stop()
    }

    /// Runs `journey` to its end and checks where it ended; returns the signed-in username.
    func run(_ journey: MustShowJourney, on bed: MatrixBed) async throws -> String {
        switch journey {
        case .password:
            let client = try bed.nativeClient()
            let result = try await client.signIn(SignInParameters(username: Fixture.ada, password: Fixture.adaPassword))
            guard case .completed(let account) = result else { throw TestFailure("expected completed: \(result)") }
            return try signedIn(account, Fixture.ada)
        case .passwordThenEmailCode, .smsWithResend, .smsRiskVerified:
            let client = try bed.nativeClient()
            let start = try await client.signIn(
                SignInParameters(username: Fixture.alan, password: Fixture.alanPassword))
            guard case .awaitingMFA(let awaiting, let methods) = start else { throw TestFailure("expected MFA") }
            let sms = journey != .passwordThenEmailCode
            let method = try #require(methods.first { $0.channelTargetType == (sms ? .sms : .email) })
            var state = try await awaiting.requestChallenge(authMethod: method)
            if sms { state = try await state.resendCode() }
            let code = try bed.code(sms ? "+447700900123" : "alan.backup@example.org")
            guard case .completed(let account) = try await state.submitChallenge(code) else {
                throw TestFailure("expected completed")
            }
            return try signedIn(account, Fixture.alan)
        case .firstFactorChoice:
            var parameters = SignInParameters(username: Fixture.ada)
            parameters.selectsAuthMethod = true
            let start = try await bed.nativeClient().signIn(parameters)
            guard case .authMethodSelectionRequired(let choice, let methods) = start else {
                throw TestFailure("expected a choice: \(start)")
            }
            let email = try #require(methods.first { $0.channelTargetType == .email })
            guard case .codeRequired(let state, _, .email, _) = try await choice.selectAuthMethod(email),
                case .completed(let account) = try await state.submitCode(bed.code(Fixture.ada))
            else { throw TestFailure("expected an email code, then completed") }
            return try signedIn(account, Fixture.ada)
        case .signUpWithAttributes:
            let username = "lin@contoso.com"
            let parameters = SignUpParameters(
                username: username, password: Fixture.adaPassword,
                attributes: ["displayName": "Lin", "postalCode": "1822"])
            guard case .codeRequired(let state, _, _, _) = try await bed.nativeClient().signUp(parameters),
                case .completed(let created) = try await state.submitCode(bed.code(username)),
                case .completed(let account) = try await created.signIn()
            else { throw TestFailure("expected a sign-up, then a sign-in") }
            #expect(bed.tenant.user(named: username)?.attributes["postalCode"] == "1822")
            return try signedIn(account, username)
        case .resetWithPolling:
            let client = try bed.nativeClient(clock: TestClock())
            guard
                case .codeRequired(let state, _, _, _) = try await client.resetPassword(
                    ResetPasswordParameters(username: Fixture.ada))
            else { throw TestFailure("expected a code") }
            let newPassword = "Difference-Engine-1822"
            let password = try await state.submitCode(bed.code(Fixture.ada))
            guard case .completed(let account) = try await password.submitPassword(newPassword).signIn() else {
                throw TestFailure("expected completed")
            }
            #expect(bed.tenant.user(named: Fixture.ada)?.password == newPassword)
            #expect(bed.tenant.receivedRequests.filter { $0.url.path.hasSuffix("/pollUpdate") }.count == 3)
            return try signedIn(account, Fixture.ada)
        case .resetBySMS, .resetChoosingSMS:
            return try await resetBySMS(choosing: journey == .resetChoosingSMS, on: bed)
        case .registration:
            let start = try await bed.nativeClient().signIn(
                SignInParameters(username: Fixture.linus, password: Fixture.linusPassword))
            guard case .strongAuthRegistrationRequired(let registration, let kinds) = start else {
                throw TestFailure("expected a registration: \(start)")
            }
            let contact = "linus.new@contoso.com"
            guard
                case .verificationRequired(let verification, _, _, _) = try await registration.challengeAuthMethod(
                    authMethod: kinds[0], verificationContact: contact),
                case .completed(let account) = try await verification.submitChallenge(bed.code(contact))
            else { throw TestFailure("expected a verification, then completed") }
            #expect(bed.tenant.user(named: Fixture.linus)?.mfaMethods.contains { $0.address == contact } == true)
            return try signedIn(account, Fixture.linus)
        case .webFallback:
            let error = try await #require(throws: SignInStartError.self) {
                try await bed.nativeClient().signIn(SignInParameters(username: MatrixBed.browserUser))
            }
            #expect(error.isBrowserRequired)
            let account = try await error.continueInBrowser(redirectURI: MatrixBed.redirectURI, using: bed.browser)
            return try signedIn(account, MatrixBed.browserUser)
        case .draftPassword:
            let result = try await bed.webClient().signInFirstParty(
                username: Fixture.ada, password: Fixture.adaPassword, scopes: ["offline_access"])
            guard case .completed(let account) = result else { throw TestFailure("expected completed: \(result)") }
            return try signedIn(account, Fixture.ada)
        case .draftPasswordThenCode:
            let result = try await bed.webClient().signInFirstParty(
                username: Fixture.alan, password: Fixture.alanPassword, scopes: ["offline_access"])
            guard case .challengeRequired(let state) = result, state.isCodeRequired,
                case .completed(let account) = try await state.submitCode(bed.code("+447700900123"))
            else { throw TestFailure("expected a one-time code, then completed") }
            return try signedIn(account, Fixture.alan)
        case .draftStepUp:
            let client = try bed.webClient()
            let result = try await client.signInFirstParty(
                username: Fixture.ada, password: Fixture.adaPassword, scopes: ["offline_access"])
            guard case .completed(let account) = result,
                case .challengeRequired(let state) = try await client.signInFirstParty(continuing: account),
                case .completed(let again) = try await state.submitCode(bed.code(Fixture.ada))
            else { throw TestFailure("expected a sign-in, a code, then the step-up") }
            #expect(again.account.identifier == account.account.identifier)
            return try signedIn(again, Fixture.ada)
        case .draftRefreshChallenge:
            let result = try await bed.webClient().signInFirstParty(
                username: Fixture.ada, password: Fixture.adaPassword, scopes: ["offline_access"])
            guard case .completed(let account) = result else { throw TestFailure("expected completed: \(result)") }
            bed.tenant.challengeNextRefresh(of: Fixture.ada)
            let error = try await #require(throws: RetrieveAccessTokenError.self) {
                try await account.getAccessToken(forceRefresh: true)
            }
            guard case .challengeRequired(let state)? = error.firstPartyContinuation,
                case .completed(let again) = try await state.submitCode(bed.code(Fixture.ada))
            else { throw TestFailure("expected the refresh's challenge, then completed") }
            #expect(!(try await again.getAccessToken()).accessToken.isEmpty)
            return try signedIn(again, Fixture.ada)
        case .draftRedirectToWeb:
            let result = try await bed.webClient().signInFirstParty(
                username: MatrixBed.browserUser, password: MatrixBed.browserPassword)
            guard case .browserRequired(let state) = result else { throw TestFailure("expected the browser") }
            let account = try await state.continueInBrowser(using: bed.browser)
            return try signedIn(account, MatrixBed.browserUser)
        }
    }

    /// Alan's password reset with the code sent by SMS, the only method offered or the one chosen
    /// of email and SMS, then his sign-in; returns his username.
    func resetBySMS(choosing: Bool, on bed: MatrixBed) async throws -> String {
        let client = try bed.nativeClient(clock: TestClock())
        var parameters = ResetPasswordParameters(username: Fixture.alan)
        parameters.selectsAuthMethod = choosing
        let start = try await client.resetPassword(parameters)
        let code: ResetPasswordCodeRequiredState
        switch (choosing, start) {
        case (false, .codeRequired(let state, _, .sms, _)):
            code = state
        case (true, .authMethodSelectionRequired(let choice, let methods)):
            #expect(methods.map(\.channelTargetType) == [.email, .sms])
            #expect(bed.received == 2, "authorize-challenge and resetpassword/start: nothing sent before the choice")
            let sms = try #require(methods.first { $0.channelTargetType == .sms })
            guard case .codeRequired(let state, _, .sms, _) = try await choice.selectAuthMethod(sms) else {
                throw TestFailure("expected an SMS code")
            }
            code = state
        default:
            throw TestFailure("expected \(choosing ? "a choice" : "an SMS code"): \(start)")
        }
        let newPassword = "Colossus-Mark-2-1944"
        let password = try await code.submitCode(bed.code("+447700900123"))
        guard case .completed(let account) = try await password.submitPassword(newPassword).signIn() else {
            throw TestFailure("expected completed")
        }
        #expect(bed.tenant.lastCode(sentTo: Fixture.alan) == nil, "no code went to the email address")
        #expect(bed.tenant.user(named: Fixture.alan)?.password == newPassword)
        #expect(bed.tenant.receivedRequests.filter { $0.url.path.contains("/auth/methods/sms/") }.count == 2)
        return try signedIn(account, Fixture.alan)
    }

    /// Checks the account is `username`'s; returns the username.
    func signedIn(_ account: UserAccountResult, _ username: String) throws -> String {
        #expect(account.account.username == username)
        return account.account.username
    }

    @Test("the docs' round-trip tables are the matrix's: Native Auth V2's and the draft's")
    func theDocsTablesAreTheMatrix() throws {
        var v2 = try MatrixDocs.table(in: "Docs/NativeAuthV2.md")
        var draft = try MatrixDocs.table(in: "Docs/FirstPartyApps.md")
        for journey in MustShowJourney.allCases {
            let total = journey.roundTrips.sdk + journey.roundTrips.browser
            let row = journey.isDraft ? draft.removeValue(forKey: journey.title) : v2.removeValue(forKey: journey.title)
            #expect(row?.inProcess == total && row?.http == total, "\(journey.rawValue): \(String(describing: row))")
        }
        #expect(v2.isEmpty && draft.isEmpty, "rows the matrix does not run: \(v2.keys.sorted() + draft.keys.sorted())")
    }
}
