// The samples of Docs/Errors.md, and the tests that run them against an emulated tenant.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: errors-submit
func submit(_ code: String, on state: SignInCodeRequiredState) async -> String {
    do {
        _ = try await state.submitCode(code)
        return "Signed in."
    } catch {
        // error is a VerifyCodeError: submitCode is the only call here that throws.
        if error.isInvalidCode { return "That code is not right. Try again." }
        if error.isFlowExpired { return "The code expired. Start again." }
        if error.isNetworkError { return "No connection. Try again." }
        if error.isBrowserRequired { return "Please continue in the browser." }
        return "Sign-in failed (reference \(error.correlationId))."
    }
}
// snippet: end

// snippet: errors-log
func log(_ error: any NativeAuthError) {
    print(error)  // the description: safe to log, it never holds a secret
}
// snippet: end

// snippet: errors-console-logger
struct ConsoleLogger: NativeAuthLogger {
    let minimumLevel: LogLevel = .info

    func log(_ record: LogRecord) {
        print("NativeAuth \(record)")
    }
}
// snippet: end

@Suite(.hangLimit)
struct ErrorsSnippetTests {
    @Test func explainsEachError() async throws {
        let (client, tenant, _) = try makeClient()
        let start = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }

        #expect(await submit("00000000", on: state) == "That code is not right. Try again.")
        tenant.force(.networkFailure, on: .token)
        #expect(await submit("00000000", on: state) == "No connection. Try again.")
        let code = try #require(tenant.lastCode(sentTo: "grace@example.com"))
        #expect(await submit(code, on: state) == "Signed in.")
    }

    @Test func logsAnErrorWithoutItsSecrets() async throws {
        let (client, _, _) = try makeClient()
        let start = try await client.signIn(SignInParameters(username: "ada@example.com"))
        guard case .passwordRequired(let state) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        let console = Console()
        do {
            _ = try await state.submitPassword("not-the-password")
            Issue.record("a wrong password was accepted")
        } catch {
            Console.$current.withValue(console) { log(error) }
        }
        #expect(!console.output.isEmpty)
        #expect(!console.output.joined().contains("not-the-password"))
    }

    @Test func keepsLogRecordsInMemory() throws {
        let console = Console()
        try Console.$current.withValue(console) {
            // snippet: errors-in-memory-logger
            var configuration = try NativeAuthConfiguration(
                clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
            let logger = InMemoryLogger(minimumLevel: .debug)
            configuration.logger = logger
            let client = NativeAuthClient(configuration: configuration)

            // Later, for a diagnostics screen or a test:
            for record in logger.records {
                // [debug] request sent correlation-id=… endpoint=oauth2/v2.0/initiate fields=client_id,…
                print(record)
            }
            // snippet: end
            #expect(client.configuration.logger != nil)
            #expect(console.output.count == logger.records.count)
        }
    }

    @Test func logsToTheConsole() async throws {
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
        var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        configuration.logger = ConsoleLogger()
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        let console = Console()

        _ = try await Console.$current.withValue(console) {
            try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        }

        #expect(console.output.contains { $0.hasPrefix("NativeAuth ") })
        #expect(!console.output.joined().contains("Analytical-Engine-1843"))
    }
}
