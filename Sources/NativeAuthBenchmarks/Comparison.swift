import Foundation
import NativeAuth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SDK against the hand-rolled baseline, interleaved in rounds on the same canned answers.
///
///     swift run -c release nativeauth-benchmarks [--rounds N] [--only TEXT] [--no-compare] [--compare-only]
///
/// Each round runs a batch of one operation with the SDK, then the same batch with the baseline;
/// a row's figure is the median over rounds of the CPU time per operation (process CPU time, so
/// work on other threads counts).
enum Comparison {
    struct Row {
        let name: String
        let sdk: Double  // ns per operation, median of rounds
        let baseline: Double

        var ratio: Double { sdk / max(baseline, 1) }
    }

    static let username = "ada@contoso.com"
    static let password = "Analytical-Engine-1843"
    static let code = "12345678"

    static func cpuNanoseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Times `batch` runs of `sdk` and of `baseline` per round, alternating which goes first.
    /// Only rows whose name contains this run (`--only TEXT`); all when `nil`.
    nonisolated(unsafe) static var only: String?

    static func row(
        _ name: String, rounds: Int, batch: Int, sdk: () async throws -> Void, baseline: () async throws -> Void
    ) async throws -> Row? {
        if let only, !name.contains(only) { return nil }
        // Warm up both.
        for _ in 0..<max(1, batch / 4) {
            try await sdk()
            try await baseline()
        }
        var sdkTimes: [Double] = []
        var baselineTimes: [Double] = []
        for round in 0..<rounds {
            for side in round % 2 == 0 ? [0, 1] : [1, 0] {
                let start = cpuNanoseconds()
                for _ in 0..<batch {
                    if side == 0 { try await sdk() } else { try await baseline() }
                }
                let perOperation = (cpuNanoseconds() - start) / Double(batch)
                if side == 0 { sdkTimes.append(perOperation) } else { baselineTimes.append(perOperation) }
            }
        }
        return Row(name: name, sdk: median(sdkTimes), baseline: median(baselineTimes))
    }

    static func sdkClient(_ tenant: CannedTenant, store: any CredentialStore) throws -> NativeAuthClient {
        let configuration = try NativeAuthConfiguration(
            clientId: CannedTenant.clientId, authority: CannedTenant.authority)
        return NativeAuthClient(configuration: configuration, transport: tenant, credentialStore: store)
    }

    static func sdkCodeSignIn(_ client: NativeAuthClient) async throws -> UserAccountResult {
        guard case .codeRequired(let state, _, _, _) = try await client.signIn(SignInParameters(username: username)),
            case .completed(let account) = try await state.submitCode(code)
        else { throw BenchmarkFailure.setup("code sign-in") }
        return account
    }

    static func sdkPasswordSignIn(_ client: NativeAuthClient) async throws -> UserAccountResult {
        guard
            case .completed(let account) = try await client.signIn(
                SignInParameters(username: username, password: password))
        else { throw BenchmarkFailure.setup("password sign-in") }
        return account
    }

    /// Checks that the SDK and the baseline send the same form fields to the same endpoints.
    static func checkSameFields() async throws {
        for passwordUser in [false, true] {
            let tenant = CannedTenant(passwordUser: passwordUser)
            let client = try sdkClient(tenant, store: InMemoryCredentialStore())
            let baseline = HandRolledClient(
                transport: tenant, authority: CannedTenant.authority, clientId: CannedTenant.clientId)
            tenant.startRecording()
            let account = passwordUser ? try await sdkPasswordSignIn(client) : try await sdkCodeSignIn(client)
            _ = try await account.getAccessToken(forceRefresh: true)
            let sdkFields = tenant.stopRecording()
            tenant.startRecording()
            if passwordUser {
                try await baseline.signInWithPassword(username: username, password: password, scopes: [])
            } else {
                try await baseline.signInWithCode(username: username, code: code, scopes: [])
            }
            try await baseline.refresh(scopes: [])
            let baselineFields = tenant.stopRecording()
            guard sdkFields == baselineFields else {
                throw BenchmarkFailure.setup(
                    "the clients send different fields: SDK \(sdkFields), baseline \(baselineFields)")
            }
        }
    }

    static func run(rounds: Int) async throws -> [Row] {
        try await checkSameFields()
        var rows: [Row?] = []
        let codeTenant = CannedTenant(passwordUser: false)
        let passwordTenant = CannedTenant(passwordUser: true)
        let codeClient = try sdkClient(codeTenant, store: InMemoryCredentialStore())
        let codeBaseline = HandRolledClient(
            transport: codeTenant, authority: CannedTenant.authority, clientId: CannedTenant.clientId)
        rows.append(
            try await row("code sign-in", rounds: rounds, batch: 100) {
                _ = try await sdkCodeSignIn(codeClient)
            } baseline: {
                try await codeBaseline.signInWithCode(username: username, code: code, scopes: [])
            })
        let passwordClient = try sdkClient(passwordTenant, store: InMemoryCredentialStore())
        let passwordBaseline = HandRolledClient(
            transport: passwordTenant, authority: CannedTenant.authority, clientId: CannedTenant.clientId)
        rows.append(
            try await row("password sign-in", rounds: rounds, batch: 100) {
                _ = try await sdkPasswordSignIn(passwordClient)
            } baseline: {
                try await passwordBaseline.signInWithPassword(username: username, password: password, scopes: [])
            })
        for cached in [1, 100, 1000] {
            // A long setup, which a run of the sign-in rows alone (`--only sign-in`) skips.
            if let only, only.contains("sign-in") { continue }
            let store = InMemoryCredentialStore()
            let client = try sdkClient(codeTenant, store: store)
            let account = try await sdkCodeSignIn(client)
            let baseline = HandRolledClient(
                transport: codeTenant, authority: CannedTenant.authority, clientId: CannedTenant.clientId)
            try await baseline.signInWithCode(username: username, code: code, scopes: [])
            let scopeSets = (1..<cached).map { ["api://resource-\($0)/read"] }
            for scopes in scopeSets {
                _ = try await account.getAccessToken(scopes: scopes)
                try await baseline.refresh(scopes: scopes)
            }
            rows.append(
                try await row("refresh, \(cached) scope set\(cached == 1 ? "" : "s") cached", rounds: rounds, batch: 50)
                {
                    _ = try await account.getAccessToken(forceRefresh: true)
                } baseline: {
                    try await baseline.refresh(scopes: [])
                })
            if cached == 1 || cached == 1000 {
                let lookups = [[]] + scopeSets
                var index = 0
                var baselineIndex = 0
                rows.append(
                    try await row(
                        "cached getAccessToken, \(cached) scope set\(cached == 1 ? "" : "s")", rounds: rounds,
                        batch: 20_000
                    ) {
                        index = (index &+ 7919) % lookups.count
                        _ = try await account.getAccessToken(scopes: lookups[index])
                    } baseline: {
                        baselineIndex = (baselineIndex &+ 7919) % lookups.count
                        guard baseline.cachedToken(scopes: lookups[baselineIndex]) != nil else {
                            throw BenchmarkFailure.setup("baseline cache miss")
                        }
                    })
            }
            if cached == 100 {
                let saved = try baseline.saved()
                let configuration = client.configuration
                rows.append(
                    try await row("restore at launch + first cached token, 100 scope sets", rounds: rounds, batch: 50) {
                        let restoredClient = NativeAuthClient(
                            configuration: configuration, transport: codeTenant, credentialStore: store)
                        guard let restored = try await restoredClient.currentAccount() else {
                            throw BenchmarkFailure.setup("restore")
                        }
                        _ = try await restored.getAccessToken(scopes: scopeSets[0])
                    } baseline: {
                        let restored = HandRolledClient(
                            transport: codeTenant, authority: CannedTenant.authority, clientId: CannedTenant.clientId)
                        try restored.restore(saved)
                        guard restored.cachedToken(scopes: scopeSets[0]) != nil else {
                            throw BenchmarkFailure.setup("baseline restore")
                        }
                    })
            }
        }
        return rows.compactMap { $0 }
    }

    static func table(_ rows: [Row], rounds: Int) -> String {
        func time(_ ns: Double) -> String {
            ns >= 100_000 ? String(format: "%.3f ms", ns / 1e6) : String(format: "%.2f µs", ns / 1e3)
        }
        var lines = [
            "SDK against a hand-rolled client, same canned answers; CPU per operation, median of \(rounds) rounds",
            "  ratio   SDK          hand-rolled  operation",
        ]
        for row in rows {
            lines.append(
                String(format: "  %5.2f×  ", row.ratio)
                    + time(row.sdk).padding(toLength: 13, withPad: " ", startingAt: 0)
                    + time(row.baseline).padding(toLength: 13, withPad: " ", startingAt: 0) + row.name)
        }
        return lines.joined(separator: "\n")
    }

    /// Runs the comparison unless `--no-compare` is given.
    static func runFromCommandLine() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.contains("--no-compare") else { return }
        if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count { only = arguments[index + 1] }
        var rounds = 15
        if let index = arguments.firstIndex(of: "--rounds"), index + 1 < arguments.count,
            let value = Int(arguments[index + 1]), value > 0
        {
            rounds = value
        }
        print(table(try await run(rounds: rounds), rounds: rounds))
    }
}
