import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Sign-in end to end on the emulator", .hangLimit)
struct SignInEmulatorTests {
    let harness = EmulatorHarness()

    @Test func codeSignInThenTokenThenSignOut() async throws {
        let start = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, let sentTo, let channel, let codeLength) = start else {
            throw TestFailure("expected codeRequired")
        }
        #expect(channel == .email)
        #expect(codeLength == 8)
        #expect(sentTo.contains("***"))
        do {
            _ = try await state.submitCode("00000000")
            Issue.record("wrong code must fail")
        } catch {
            #expect(error.isInvalidCode)
        }
        let result = try await state.submitCode(harness.code(for: "grace@example.com"))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        #expect(account.account.username == "grace@example.com")
        #expect(account.account.claims.preferredUsername == "grace@example.com")
        #expect(account.account.claims.tenantId == harness.tenant.tenantId)
        let token = try await account.getAccessToken()
        #expect(token.expiresOn == harness.clock.now().addingTimeInterval(3600))
        #expect(try await harness.client.currentAccount()?.account.username == "grace@example.com")
        #expect(await account.signOut().removedFromStore)
        #expect(try await harness.client.currentAccount() == nil)
    }

    @Test func resendInvalidatesThePreviousCode() async throws {
        let start = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else { throw TestFailure("expected codeRequired") }
        let first = try harness.code(for: "grace@example.com")
        let fresh = try await state.resendCode()
        let second = try harness.code(for: "grace@example.com")
        if first != second {
            do {
                _ = try await fresh.submitCode(first)
                Issue.record("the old code must not work")
            } catch {
                #expect(error.isInvalidCode)
            }
        }
        guard case .completed = try await fresh.submitCode(second) else { throw TestFailure("expected completed") }
    }

    @Test func passwordSignIn() async throws {
        let start = try await harness.client.signIn(SignInParameters(username: "ada@example.com"))
        guard case .passwordRequired(let state) = start else { throw TestFailure("expected passwordRequired") }
        do {
            _ = try await state.submitPassword("nope-nope")
            Issue.record("wrong password must fail")
        } catch {
            #expect(error.isInvalidPassword)
        }
        guard case .completed(let account) = try await state.submitPassword(EmulatorHarness.password) else {
            throw TestFailure("expected completed")
        }
        #expect(account.account.claims.name == "Ada Lovelace")
    }

    @Test func passwordUpFront() async throws {
        let result = try await harness.client.signIn(
            SignInParameters(
                username: "ada@example.com", password: EmulatorHarness.password, scopes: ["api://demo/read"]))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        let token = try await account.getAccessToken()
        let claims = Claims(JWT.payload(of: token.accessToken) ?? [:])
        #expect(claims.scopes.contains("api://demo/read"))
    }

    @Test func passwordlessUserWithPasswordGetsACode() async throws {
        let result = try await harness.client.signIn(
            SignInParameters(username: "grace@example.com", password: "anything-at-all"))
        guard case .codeRequired = result else { throw TestFailure("expected codeRequired") }
    }

    @Test func unknownUser() async throws {
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "nobody@example.com"))
            Issue.record("expected user not found")
        } catch {
            #expect(error.isUserNotFound)
            #expect(error.errorCodes.contains(50034))
        }
    }

    @Test func passwordOnlyAppAndPasswordlessUserIsBrowserRequired() async throws {
        let client = harness.makeClient(challengeTypes: [.password])
        do {
            _ = try await client.signIn(SignInParameters(username: "grace@example.com"))
            Issue.record("expected browser required")
        } catch {
            #expect(error.isBrowserRequired)
            #expect(error.redirectReason?.isEmpty == false)
        }
    }

    @Test func mfaEndToEnd() async throws {
        let start = try await harness.client.signIn(
            SignInParameters(username: "alan@example.com", password: EmulatorHarness.password))
        guard case .awaitingMFA(let awaiting, let methods) = start else { throw TestFailure("expected awaitingMFA") }
        let method = try #require(methods.first)
        #expect(method.channelTargetType == .email)
        let required = try await awaiting.requestChallenge(authMethod: method)
        do {
            _ = try await required.submitChallenge("00000000")
        } catch {
            #expect(error.isInvalidChallenge)
        }
        guard
            case .completed(let account) = try await required.submitChallenge(
                harness.code(for: "alan.backup@example.com"))
        else { throw TestFailure("expected completed") }
        #expect(account.account.username == "alan@example.com")
    }

    @Test func mfaWithoutCapabilityIsBrowserRequired() async throws {
        let client = harness.makeClient(capabilities: [])
        do {
            _ = try await client.signIn(
                SignInParameters(username: "alan@example.com", password: EmulatorHarness.password))
            Issue.record("expected browser required")
        } catch {
            #expect(error.isBrowserRequired)
        }
    }

    @Test func registrationWithoutCapabilityIsBrowserRequired() async throws {
        let client = harness.makeClient(capabilities: [.mfaRequired])
        do {
            _ = try await client.signIn(
                SignInParameters(username: "joan@example.com", password: EmulatorHarness.password))
            Issue.record("expected browser required")
        } catch {
            #expect(error.isBrowserRequired)
        }
    }

    @Test func registrationEndToEnd() async throws {
        let start = try await harness.client.signIn(
            SignInParameters(username: "joan@example.com", password: EmulatorHarness.password))
        guard case .strongAuthRegistrationRequired(let state, let methods) = start else {
            throw TestFailure("expected registration")
        }
        let method = try #require(methods.first)
        do {
            _ = try await state.challengeAuthMethod(authMethod: method, verificationContact: "not-an-address")
        } catch {
            #expect(error.isInvalidInput)
        }
        let challenge = try await state.challengeAuthMethod(
            authMethod: method, verificationContact: "joan.mfa@example.com")
        guard case .verificationRequired(let verify, _, _, _) = challenge else { throw TestFailure("expected code") }
        guard case .completed = try await verify.submitChallenge(harness.code(for: "joan.mfa@example.com")) else {
            throw TestFailure("expected completed")
        }
        #expect(harness.tenant.user(named: "joan@example.com")?.mfaMethods.isEmpty == false)
    }

    @Test func registrationPreverified() async throws {
        let start = try await harness.client.signIn(
            SignInParameters(username: "joan@example.com", password: EmulatorHarness.password))
        guard case .strongAuthRegistrationRequired(let state, let methods) = start else {
            throw TestFailure("expected registration")
        }
        let result = try await state.challengeAuthMethod(
            authMethod: methods[0], verificationContact: "joan@example.com")
        guard case .completed = result else { throw TestFailure("expected preverified completion") }
    }

    @Test func expiredContinuationTokenOnTheClock() async throws {
        let start = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else { throw TestFailure("expected codeRequired") }
        harness.clock.advance(by: 601)
        let code = try harness.code(for: "grace@example.com")
        do {
            _ = try await state.submitCode(code)
            Issue.record("expected expiry")
        } catch {
            #expect(error.isFlowExpired)
        }
    }

    @Test func refreshOnTheEmulatorRotatesTokens() async throws {
        let result = try await harness.client.signIn(
            SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        let first = try await account.getAccessToken()
        harness.clock.advance(by: 3600)
        let second = try await account.getAccessToken()
        #expect(first.accessToken != second.accessToken)
        harness.clock.advance(by: 3600)
        // The rotated refresh token was kept: the old one is revoked by the emulator.
        let third = try await account.getAccessToken()
        #expect(third.accessToken != second.accessToken)
        harness.tenant.revokeRefreshTokens(for: "ada@example.com")
        do {
            _ = try await account.getAccessToken(forceRefresh: true)
            Issue.record("expected refresh token expired")
        } catch {
            #expect(error.isRefreshTokenExpired)
        }
        #expect(try await harness.client.currentAccount() == nil)
    }

    @Test func forcedCatalogueErrors() async throws {
        harness.tenant.force(.error("invalid_client", suberror: "nativeauthapi_disabled", codes: [7000]), on: .initiate)
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "ada@example.com"))
        } catch {
            #expect(error.isConfigurationError)
        }
        harness.tenant.force(.redirect(reason: "Browser please"), on: .challenge)
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "ada@example.com"))
        } catch {
            #expect(error.isBrowserRequired)
            #expect(error.redirectReason == "Browser please")
        }
        harness.tenant.force(.networkFailure, on: .initiate)
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "ada@example.com"))
        } catch {
            #expect(error.isNetworkError)
        }
        harness.tenant.force(
            .raw(status: 502, headers: ["Content-Type": "text/html"], body: Data("<html/>".utf8)), on: .initiate)
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "ada@example.com"))
        } catch {
            #expect(error.isUnexpectedResponse)
            #expect(error.details.httpStatusCode == 502)
        }
    }

    @Test func correlationIdComesBack() async throws {
        let id = UUID()
        _ = try await harness.client.signIn(SignInParameters(username: "ada@example.com", correlationId: id))
        #expect(
            harness.tenant.receivedRequests.allSatisfy { $0.header("client-request-id") == id.uuidString.lowercased() })
    }
}
