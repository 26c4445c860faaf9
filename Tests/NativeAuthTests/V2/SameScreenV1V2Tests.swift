import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The logic of a sign-in screen as an app writes it, with no protocol in sight: it asks for what
/// each state wants, makes one mistake at each step to show the error, and records what it saw.
/// The user's answers come from `user` (a code from the mailbox, a password from memory).
struct SignInScreenLogic {
    let client: NativeAuthClient
    /// What the user types when asked for `field` (`"password"`, or the address a code went to).
    let user: @Sendable (_ field: String) throws -> String

    func run(_ username: String) async -> [String] {
        var trace: [String] = []
        do {
            switch try await client.signIn(SignInParameters(username: username)) {
            case .codeRequired(let state, _, let channel, let length):
                trace.append("code(\(channel), \(length.map(String.init) ?? "?"))")
                try await codeStep(state, trace: &trace)
            case .passwordRequired(let state):
                trace.append("password")
                do {
                    _ = try await state.submitPassword("not-the-password")
                } catch { trace.append("wrong password: \(error.isInvalidPassword)") }
                try await next(state.submitPassword(user("password")), trace: &trace)
            case .completed(let account):
                trace.append("completed(\(account.account.username))")
            case .awaitingMFA(_, let methods):
                trace.append("mfa(\(methods.map(\.channelTargetType)))")
            case .strongAuthRegistrationRequired:
                trace.append("registration")
            case .authMethodSelectionRequired:
                trace.append("selection")
            }
        } catch let error as SignInStartError {
            trace.append("start error: userNotFound=\(error.isUserNotFound) browser=\(error.isBrowserRequired)")
        } catch {
            trace.append("error: \(type(of: error))")
        }
        return trace
    }

    private func codeStep(_ state: SignInCodeRequiredState, trace: inout [String]) async throws {
        do {
            _ = try await state.submitCode("00000000")
        } catch { trace.append("wrong code: \(error.isInvalidCode)") }
        let fresh = try await state.resendCode()
        trace.append("resent(\(fresh.channelTargetType))")
        try await next(fresh.submitCode(user(fresh.sentTo)), trace: &trace)
    }

    private func next(_ result: SignInResult, trace: inout [String]) async throws {
        switch result {
        case .completed(let account):
            trace.append("completed(\(account.account.username))")
        case .awaitingMFA(let state, let methods):
            trace.append("mfa(\(methods.map(\.channelTargetType)))")
            let challenge = try await state.requestChallenge(authMethod: methods[0])
            trace.append("mfa code(\(challenge.channelTargetType), \(challenge.codeLength.map(String.init) ?? "?"))")
            do {
                _ = try await challenge.submitChallenge("00000000")
            } catch { trace.append("wrong mfa code: \(error.isInvalidChallenge)") }
            try await next(challenge.submitChallenge(user(challenge.sentTo)), trace: &trace)
        case .strongAuthRegistrationRequired:
            trace.append("registration")
        }
    }
}

/// One screen's logic, unchanged, against V1 and V2: the same states, in the same order, with the
/// same errors. Moving an app to V2 is a configuration change.
@Suite("V2: the same screen code gets the same states as V1", .hangLimit)
struct SameScreenV1V2Tests {
    static let users =
        EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: "bo@example.com", password: EmulatorHarness.password, requiresBrowser: true)
        ]

    /// The trace of the screen signing `username` in on a fresh tenant over `version`.
    static func trace(_ username: String, _ version: NativeAuthProtocol) async -> [String] {
        let harness = EmulatorHarness(users: users)
        let client = version == .v2 ? V2Clients.client(harness) : harness.client
        let screen = SignInScreenLogic(client: client) { field in
            if field == "password" { return EmulatorHarness.password }
            // The masked address the code went to: the one user address it masks.
            let addresses = ["grace@example.com", "alan.backup@example.com"]
            guard
                let address = addresses.first(where: { harness.tenant.lastCode(sentTo: $0) != nil && mask($0, field) })
            else { throw TestFailure("no code for \(field)") }
            return try harness.code(for: address)
        }
        return await screen.run(username)
    }

    /// Whether `masked` could be `address` masked: same first character and same domain ending.
    static func mask(_ address: String, _ masked: String) -> Bool {
        address.first == masked.first && address.split(separator: "@").last?.suffix(3) == masked.suffix(3)
    }

    @Test(arguments: [
        "grace@example.com", "ada@example.com", "alan@example.com", "nobody@example.com", "bo@example.com",
    ])
    func sameStatesOverBothProtocols(username: String) async {
        let v1 = await Self.trace(username, .v1)
        let v2 = await Self.trace(username, .v2)
        #expect(v1.count >= 1)
        #expect(v1 == v2, "V1 \(v1) / V2 \(v2)")
        #expect(!v1.contains { $0.hasPrefix("error:") }, "\(v1)")
    }

    @Test func theTracesSayWhatHappened() async {
        #expect(
            await Self.trace("grace@example.com", .v2) == [
                "code(email, 8)", "wrong code: true", "resent(email)", "completed(grace@example.com)",
            ])
        #expect(
            await Self.trace("alan@example.com", .v2) == [
                "password", "wrong password: true", "mfa([email])", "mfa code(email, 8)", "wrong mfa code: true",
                "completed(alan@example.com)",
            ])
    }
}
