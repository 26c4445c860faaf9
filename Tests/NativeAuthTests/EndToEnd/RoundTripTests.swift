import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Each flow sends the fewest requests the protocol allows; a change that adds one fails here.
@Suite("Round trips per flow stay at the protocol's minimum", .hangLimit)
struct RoundTripTests {
    /// The endpoint paths (`initiate`, `challenge`, …) of the requests the tenant received after `start`.
    static func paths(_ tenant: EmulatedTenant, after start: Int) -> [String] {
        tenant.receivedRequests.dropFirst(start).map { request in
            request.url.pathComponents.suffix(2).joined(separator: "/")
        }
    }

    @Test func signInFlows() async throws {
        let harness = EmulatorHarness()
        var start = harness.tenant.receivedRequests.count
        // Email code: initiate, challenge (the code is sent), token.
        guard
            case .codeRequired(let codeState, _, _, _) = try await harness.client.signIn(
                SignInParameters(username: "grace@example.com")),
            case .completed = try await codeState.submitCode(harness.code(for: "grace@example.com"))
        else { throw TestFailure("code sign-in") }
        #expect(Self.paths(harness.tenant, after: start) == ["v2.0/initiate", "v2.0/challenge", "v2.0/token"])
        // Password given up front: initiate, challenge (password), token.
        start = harness.tenant.receivedRequests.count
        guard
            case .completed(let account) = try await harness.client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("password sign-in") }
        #expect(Self.paths(harness.tenant, after: start) == ["v2.0/initiate", "v2.0/challenge", "v2.0/token"])
        // Password asked for: the same three.
        start = harness.tenant.receivedRequests.count
        guard
            case .passwordRequired(let passwordState) = try await harness.client.signIn(
                SignInParameters(username: "ada@example.com")),
            case .completed = try await passwordState.submitPassword(EmulatorHarness.password)
        else { throw TestFailure("password asked") }
        #expect(Self.paths(harness.tenant, after: start) == ["v2.0/initiate", "v2.0/challenge", "v2.0/token"])
        // A cached token: none. A refresh: one.
        start = harness.tenant.receivedRequests.count
        _ = try await account.getAccessToken()
        #expect(Self.paths(harness.tenant, after: start).isEmpty)
        _ = try await harness.client.currentAccount()?.getAccessToken(forceRefresh: true)
        #expect(Self.paths(harness.tenant, after: start) == ["v2.0/token"])
    }

    @Test func signUpThenSignIn() async throws {
        let harness = EmulatorHarness()
        let start = harness.tenant.receivedRequests.count
        let username = "new.user@example.com"
        // start, challenge (code sent), continue (code), continue (password), then one token request.
        guard
            case .codeRequired(let codeState, _, _, _) = try await harness.client.signUp(
                SignUpParameters(username: username)),
            case .passwordRequired(let passwordState) = try await codeState.submitCode(harness.code(for: username)),
            case .completed(let after) = try await passwordState.submitPassword(EmulatorHarness.password),
            case .completed = try await after.signIn()
        else { throw TestFailure("sign-up") }
        #expect(
            Self.paths(harness.tenant, after: start) == [
                "v1.0/start", "v1.0/challenge", "v1.0/continue", "v1.0/challenge", "v1.0/continue", "v2.0/token",
            ])
    }

    @Test func signUpOrSignInCostsOneRequestMoreThanSignUpAndNoneMoreThanSignIn() async throws {
        let harness = EmulatorHarness()
        let client = harness.makeClient(challengeTypes: [.oob])
        // A known user: sign-in's three.
        var start = harness.tenant.receivedRequests.count
        guard
            case .codeRequired(let known, _, _, _) = try await client.signUpOrSignIn(
                SignUpOrSignInParameters(username: "grace@example.com")),
            case .completed(_, false) = try await known.submitCode(harness.code(for: "grace@example.com"))
        else { throw TestFailure("known user") }
        #expect(Self.paths(harness.tenant, after: start) == ["v2.0/initiate", "v2.0/challenge", "v2.0/token"])
        // A new user: the initiate that finds no user, then sign-up's start, challenge, continue and the token.
        start = harness.tenant.receivedRequests.count
        let username = "new.user@example.com"
        guard
            case .codeRequired(let new, _, _, _) = try await client.signUpOrSignIn(
                SignUpOrSignInParameters(username: username)),
            case .completed(_, true) = try await new.submitCode(harness.code(for: username))
        else { throw TestFailure("new user") }
        #expect(
            Self.paths(harness.tenant, after: start) == [
                "v2.0/initiate", "v1.0/start", "v1.0/challenge", "v1.0/continue", "v2.0/token",
            ])
    }
}
