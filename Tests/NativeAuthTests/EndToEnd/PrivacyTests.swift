import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Privacy: no secret in logs, errors or descriptions", .hangLimit)
struct PrivacyTests {
    let harness = EmulatorHarness()

    /// Everything a secret could leak into.
    final class Renderings: @unchecked Sendable {
        // Only touched from the test's own task, in order.
        var texts: [String] = []
        func add(_ value: Any) {
            texts.append(String(describing: value))
            texts.append(String(reflecting: value))
            if let error = value as? any LocalizedError { texts.append(error.errorDescription ?? "") }
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }
    }

    @Test func everySignInFlowAtTraceLevel() async throws {
        let seen = Renderings()
        func attempt<T>(_ body: () async throws -> T) async -> T? {
            do {
                let value = try await body()
                seen.add(value)
                return value
            } catch {
                seen.add(error)
                return nil
            }
        }
        let client = harness.client
        // Code sign-in with a wrong code, a resend, then the right code.
        if case .codeRequired(let state, _, _, _)? = await attempt({
            try await client.signIn(SignInParameters(username: "grace@example.com"))
        }) {
            seen.add(state)
            _ = await attempt { try await state.submitCode("99999999") }
            if let fresh = await attempt({ try await state.resendCode() }) {
                _ = await attempt { try await state.submitCode("1") }  // spent
                if case .completed(let account)? = await attempt({
                    try await fresh.submitCode(harness.code(for: "grace@example.com"))
                }) {
                    seen.add(account.account)
                    _ = await attempt { try await account.getAccessToken(forceRefresh: true) }
                    _ = await attempt { await account.signOut() }
                    _ = await attempt { try await account.getAccessToken() }
                }
            }
        }
        // Password: wrong, then right; up front with a wrong password.
        _ = await attempt {
            try await client.signIn(SignInParameters(username: "ada@example.com", password: "Wr0ng-Password!"))
        }
        if case .passwordRequired(let state)? = await attempt({
            try await client.signIn(SignInParameters(username: "ada@example.com"))
        }) {
            _ = await attempt { try await state.submitPassword("Wr0ng-Password!") }
            _ = await attempt { try await state.submitPassword(EmulatorHarness.password) }
        }
        // MFA and registration.
        if case .awaitingMFA(let awaiting, let methods)? = await attempt({
            try await client.signIn(SignInParameters(username: "alan@example.com", password: EmulatorHarness.password))
        }) {
            if let required = await attempt({ try await awaiting.requestChallenge(authMethod: methods[0]) }) {
                _ = await attempt { try await required.submitChallenge("12121212") }
                _ = await attempt { try await required.submitChallenge(harness.code(for: "alan.backup@example.com")) }
            }
        }
        if case .strongAuthRegistrationRequired(let state, let methods)? = await attempt({
            try await client.signIn(SignInParameters(username: "joan@example.com", password: EmulatorHarness.password))
        }) {
            if case .verificationRequired(let verify, _, _, _)? = await attempt({
                try await state.challengeAuthMethod(authMethod: methods[0], verificationContact: "joan.mfa@example.com")
            }) {
                _ = await attempt { try await verify.submitChallenge("34343434") }
                _ = await attempt { try await verify.submitChallenge(harness.code(for: "joan.mfa@example.com")) }
            }
        }
        // Refresh failures.
        if let account = try await client.currentAccount() {
            harness.tenant.force(.error("invalid_grant", codes: [70000]), on: .token)
            _ = await attempt { try await account.getAccessToken(forceRefresh: true) }
        }

        #expect(harness.tenant.user(named: "joan@example.com")?.mfaMethods.isEmpty == false)
        let secrets = harness.secretsSeen(extra: ["Wr0ng-Password!", "99999999", "12121212", "34343434"])
        #expect(secrets.count > 20)
        let logs = harness.logger.records.map(\.description)
        #expect(logs.count > 50)
        for secret in secrets {
            for text in logs + seen.texts where text.contains(secret) {
                Issue.record("a secret leaked into: \(text.prefix(200))")
            }
        }
    }

    @Test func signUpAndResetAtTraceLevel() async throws {
        harness.tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "city", regex: "[A-Z][a-z]+")]
            $0.resetPollsBeforeCompletion = 1
        }
        let seen = Renderings()
        func attempt<T>(_ body: () async throws -> T) async -> T? {
            do {
                let value = try await body()
                seen.add(value)
                return value
            } catch {
                seen.add(error)
                return nil
            }
        }
        let client = harness.client
        let mover = advanceWhileSleeping(harness.clock)
        defer { mover.cancel() }
        let weak = "weakpassword"
        let newPassword = "Sign-Up-Secret-9!"
        let resetPassword = "Reset-Secret-7!"
        seen.add(SignUpParameters(username: "p@example.com", password: newPassword, attributes: ["city": "Oslo"]))
        if case .codeRequired(let state, _, _, _)? = await attempt({
            try await client.signUp(SignUpParameters(username: "p@example.com"))
        }) {
            _ = await attempt { try await state.submitCode("55555555") }
            if case .passwordRequired(let password)? = await attempt({
                try await state.submitCode(harness.code(for: "p@example.com"))
            }) {
                _ = await attempt { try await password.submitPassword(weak) }
                if case .attributesRequired(_, let attributes)? = await attempt({
                    try await password.submitPassword(newPassword)
                }) {
                    _ = await attempt { try await attributes.submitAttributes(["city": "oslo"]) }
                    if case .completed(let after)? = await attempt({
                        try await attributes.submitAttributes(["city": "Oslo"])
                    }) {
                        if case .completed(let account)? = await attempt({ try await after.signIn() }) {
                            _ = await attempt { await account.signOut() }
                        }
                    }
                }
            }
        }
        if case .codeRequired(let state, _, _, _)? = await attempt({
            try await client.resetPassword(ResetPasswordParameters(username: "p@example.com"))
        }) {
            _ = await attempt { try await state.submitCode("66666666") }
            if let required = await attempt({ try await state.submitCode(harness.code(for: "p@example.com")) }) {
                _ = await attempt { try await required.submitPassword(newPassword) }
                if let after = await attempt({ try await required.submitPassword(resetPassword) }) {
                    _ = await attempt { try await after.signIn() }
                }
            }
        }
        // The whole path ran: the user exists with the reset password.
        #expect(harness.tenant.user(named: "p@example.com")?.password == resetPassword)
        let secrets = harness.secretsSeen(extra: [weak, newPassword, resetPassword, "55555555", "66666666"])
        let logs = harness.logger.records.map(\.description)
        #expect(logs.count > 30)
        for secret in secrets {
            for text in logs + seen.texts where text.contains(secret) {
                Issue.record("a secret leaked into: \(text.prefix(200))")
            }
        }
    }
}
