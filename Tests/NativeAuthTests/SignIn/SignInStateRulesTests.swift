import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Sign-in states keep the rules of Docs/Design.md", .hangLimit)
struct SignInStateRulesTests {
    let transport = ScriptedTransport()
    let gate: GatedTransport
    let client: NativeAuthClient

    init() {
        gate = GatedTransport(transport)
        client = NativeAuthClient(
            configuration: testConfiguration(), transport: gate, credentialStore: InMemoryCredentialStore())
    }

    func codeState() async throws -> SignInCodeRequiredState {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .oob("ct2"))
        let result = try await client.signIn(SignInParameters(username: "ada@example.com"))
        guard case .codeRequired(let state, _, _, _) = result else { throw TestFailure("expected codeRequired") }
        return state
    }

    func passwordState() async throws -> SignInPasswordRequiredState {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        let result = try await client.signIn(SignInParameters(username: "ada@example.com"))
        guard case .passwordRequired(let state) = result else { throw TestFailure("expected passwordRequired") }
        return state
    }

    @Test func concurrentActionsSendOneRequest() async throws {
        let state = try await codeState()
        transport.then("token", .tokens())
        gate.close()
        async let first = state.submitCode("12345678")
        await gate.waitUntilHeld(1)
        // While the first action is in flight, every other action fails at once and sends nothing.
        do {
            _ = try await state.submitCode("12345678")
            Issue.record("second submit should fail")
        } catch {
            #expect(error.isStateBusy)
        }
        do {
            _ = try await state.resendCode()
            Issue.record("resend should fail")
        } catch {
            #expect(error.isStateBusy)
        }
        gate.open()
        let result = try await first
        guard case .completed = result else { throw TestFailure("expected completed") }
        #expect(transport.requests.filter { $0.url.path.hasSuffix("token") }.count == 1)
    }

    @Test func spentStateSendsNothing() async throws {
        let state = try await codeState()
        transport.then("token", .tokens())
        _ = try await state.submitCode("12345678")
        let before = transport.requests.count
        do {
            _ = try await state.submitCode("12345678")
            Issue.record("spent state must refuse")
        } catch {
            #expect(error.isStateAlreadyUsed)
            #expect(error.description.contains("already used"))
        }
        do {
            _ = try await state.resendCode()
            Issue.record("spent state must refuse")
        } catch {
            #expect(error.isStateAlreadyUsed)
        }
        #expect(transport.requests.count == before)
    }

    @Test func wrongCodeLeavesStateUsable() async throws {
        let state = try await codeState()
        transport.then("token", .error("invalid_grant", suberror: "invalid_oob_value", codes: [50181]))
        do {
            _ = try await state.submitCode("00000000")
            Issue.record("expected invalid code")
        } catch {
            #expect(error.isInvalidCode)
        }
        transport.then("token", .tokens())
        let result = try await state.submitCode("12345678")
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        #expect(account.account.username == "ada@example.com")
        // Both submissions used the same continuation token.
        let tokenBodies = transport.requests.filter { $0.url.path.hasSuffix("token") }.map(formFields)
        #expect(tokenBodies.map { $0.contains("continuation_token=ct2") } == [true, true])
    }

    @Test func errorCarryingANewContinuationTokenUpdatesTheState() async throws {
        let state = try await codeState()
        transport.then("token", .error("invalid_grant", suberror: "invalid_oob_value", token: "ct3"))
        _ = try? await state.submitCode("00000000")
        transport.then("token", .tokens())
        _ = try await state.submitCode("12345678")
        #expect(formFields(transport.requests.last!).contains("continuation_token=ct3"))
    }

    @Test func emptyCodeSendsNothingAndKeepsState() async throws {
        let state = try await codeState()
        let before = transport.requests.count
        do {
            _ = try await state.submitCode("   ")
            Issue.record("expected invalid code")
        } catch {
            #expect(error.isInvalidCode)
        }
        #expect(transport.requests.count == before)
        transport.then("token", .tokens())
        _ = try await state.submitCode("12345678")
    }

    @Test func networkFailureLeavesStateUsable() async throws {
        let state = try await codeState()
        transport.then("token", .failure(.networkConnectionLost))
        do {
            _ = try await state.submitCode("12345678")
        } catch {
            #expect(error.isNetworkError)
        }
        transport.then("token", .tokens())
        _ = try await state.submitCode("12345678")
    }

    @Test func expiredFlowSpendsTheState() async throws {
        let state = try await codeState()
        transport.then("token", .error("expired_token", codes: [552003]))
        do {
            _ = try await state.submitCode("12345678")
        } catch {
            #expect(error.isFlowExpired)
        }
        do {
            _ = try await state.submitCode("12345678")
        } catch {
            #expect(error.isStateAlreadyUsed)
        }
    }

    @Test func resendGivesAFreshStateAndSpendsTheOldOne() async throws {
        let state = try await codeState()
        transport.then("challenge", .oob("ct3", length: 6))
        let fresh = try await state.resendCode()
        #expect(fresh.codeLength == 6)
        #expect(fresh.sentTo == "a***e@ex**e.com")
        #expect(formFields(transport.requests.last!).contains("continuation_token=ct2"))
        do {
            _ = try await state.submitCode("1")
        } catch {
            #expect(error.isStateAlreadyUsed)
        }
        transport.then("token", .tokens())
        _ = try await fresh.submitCode("123456")
        #expect(formFields(transport.requests.last!).contains("continuation_token=ct3"))
    }

    @Test func passwordIgnoredWhenServerChoosesCode() async throws {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .oob("ct2"))
        let result = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Secret-1"))
        guard case .codeRequired = result else { throw TestFailure("expected codeRequired") }
        #expect(transport.requests.allSatisfy { !formFields($0).contains { $0.hasPrefix("password=") } })
    }

    @Test func passwordGivenUpFrontSignsInInOneGo() async throws {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .tokens())
        let result = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Secret-1"))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        #expect(account.account.claims.name == "Ada")
        #expect(formFields(transport.requests[2]).contains("password=Secret-1"))
        #expect(try await client.currentAccount()?.account.username == "ada@example.com")
    }

    @Test func wrongPasswordLeavesStateUsable() async throws {
        let state = try await passwordState()
        transport.then("token", .error("invalid_grant", codes: [50126]))
        do {
            _ = try await state.submitPassword("wrong")
        } catch {
            #expect(error.isInvalidPassword)
        }
        let before = transport.requests.count
        do {
            _ = try await state.submitPassword("")
        } catch {
            #expect(error.isInvalidPassword)
        }
        #expect(transport.requests.count == before)
        transport.then("token", .tokens())
        _ = try await state.submitPassword("right")
    }

    @Test func everyRequestOfAFlowCarriesItsCorrelationId() async throws {
        let id = UUID()
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .oob("ct2"))
        let result = try await client.signIn(SignInParameters(username: "u@x.y", correlationId: id))
        guard case .codeRequired(let state, _, _, _) = result else { throw TestFailure("expected codeRequired") }
        transport.then("token", .error("invalid_grant", suberror: "invalid_oob_value"))
        do {
            _ = try await state.submitCode("1")
        } catch {
            #expect(error.correlationId == id)
        }
        #expect(transport.requests.allSatisfy { $0.header("client-request-id") == id.uuidString.lowercased() })
        #expect(state.correlationId == id)
    }
}
