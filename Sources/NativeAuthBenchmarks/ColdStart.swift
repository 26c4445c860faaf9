import Foundation
import NativeAuth
import NativeAuthEmulator

/// An app's launch with a stored session, measured in fresh processes: how long from the start of
/// `main` until the signed-in account's cached access token is in hand, with the client made as
/// an app makes it (the default transport, a file credential store). Each run is a new process,
/// so every first-use cost (Foundation's, the SDK's) counts, as it does at a real launch.
///
///     swift run -c release nativeauth-benchmarks --cold-start [--runs N]
enum ColdStart {
    /// The parent: stores a signed-in session in a temporary directory, then starts `runs` child
    /// processes that each restore it and read the cached token, and prints what they measured.
    static func run(runs: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nativeauth-cold-\(UUID().uuidString)")
        // NATIVEAUTH_COLD_START_KEEP=1 keeps the stored session and prints a child's command line,
        // to run under a profiler.
        let keep = ProcessInfo.processInfo.environment["NATIVEAUTH_COLD_START_KEEP"] == "1"
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
        let (client, _, _) = try await signedInAccount(store: FileCredentialStore(directory: directory), tokens: 100)
        let arguments = [
            "--cold-start-child", directory.path, client.configuration.clientId,
            client.configuration.authority.absoluteString,
        ]
        if keep { print("child: \(CommandLine.arguments[0]) \(arguments.joined(separator: " "))") }
        var phases: [[Double]] = [[], [], [], []]
        for _ in 0..<runs {
            let output = try child(arguments)
            let values = output.split(separator: " ").compactMap { Double($0) }
            guard values.count == 4 else { throw BenchmarkFailure.setup("child said: \(output)") }
            for (index, value) in values.enumerated() { phases[index].append(value) }
        }
        print("Launch with a stored session, \(runs) fresh processes (median, p90, min; ms from the start of main):")
        let names = ["client made", "account restored", "cached token in hand", "  of which the token read"]
        for (name, values) in zip(names, phases) {
            let sorted = values.sorted()
            let median = sorted[sorted.count / 2]
            let p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
            print(
                "  " + name.padding(toLength: 26, withPad: " ", startingAt: 0)
                    + String(format: "%7.3f  %7.3f  %7.3f", median / 1e6, p90 / 1e6, sorted[0] / 1e6))
        }
    }

    /// The child: called first thing in `main` with the time `main` started. Makes the client as an
    /// app does, restores the account, reads its cached token, and prints the nanoseconds from
    /// `start` to each of the three, and the token read alone.
    static func child(start: ContinuousClock.Instant, arguments: [String]) async -> Never {
        guard arguments.count == 3, let authority = URL(string: arguments[2]),
            let configuration = try? NativeAuthConfiguration(clientId: arguments[1], authority: authority)
        else {
            print("bad arguments")
            exit(2)
        }
        let clock = ContinuousClock()
        let client = NativeAuthClient(
            configuration: configuration,
            credentialStore: FileCredentialStore(directory: URL(fileURLWithPath: arguments[0])))
        let made = clock.now
        guard let account = try? await client.currentAccount() else {
            print("no account")
            exit(3)
        }
        let restored = clock.now
        guard (try? await account.getAccessToken()) != nil else {
            print("no token")
            exit(4)
        }
        let token = clock.now
        print(
            [made - start, restored - start, token - start, token - restored].map { "\(nanoseconds($0))" }
                .joined(separator: " "))
        exit(0)
    }

    /// Runs this executable with `arguments` and returns what it printed.
    private static func child(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure.setup("child exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
