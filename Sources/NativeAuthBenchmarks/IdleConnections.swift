import Foundation
import LoopbackHTTP
import NativeAuth
import NativeAuthEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server with thousands of idle connections: a second process (this benchmark again, with
/// `--hold-idle N --port P`) opens N connections to an `EmulatorServer` and sends nothing on
/// them, while this process signs in with the SDK before and during, and prints the latencies.
///
/// The idle connections come from another process because each connection takes a descriptor at
/// both ends: 10,000 of them would take 20,000 descriptors in one process.
enum IdleConnections {
    static func run(count: Int) async throws {
        let tenant = EmulatedTenant(tenantSubdomain: "idle")
        tenant.addUser(EmulatedUser(username: username))
        var configuration = EmulatorServer.Configuration()
        configuration.maxConnections = count + 64
        // The idle connections must stay for the whole check, however long opening them takes.
        configuration.requestTimeout = .seconds(600)
        let server = try EmulatorServer(tenant: tenant, configuration: configuration)
        server.start()
        do {
            try await check(count: count, server: server, tenant: tenant)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static let username = "idle@example.com"

    private static func check(count: Int, server: EmulatorServer, tenant: EmulatedTenant) async throws {
        print(
            "Idle connections: \(count) connections that send nothing, held by another process; "
                + "connection cap \(server.maxConnections), open-file limit "
                + (LoopbackHTTPServer.openFileLimit().map(String.init) ?? "none"))
        guard server.maxConnections >= count + 1 else {
            throw BenchmarkFailure.setup(
                "the open-file limit leaves room for \(server.maxConnections) connections only")
        }
        let client = NativeAuthClient(
            configuration: try NativeAuthConfiguration(
                clientId: tenant.clientId, authority: server.authority, challengeTypes: [.oob, .password]),
            transport: URLSessionTransport(), credentialStore: InMemoryCredentialStore())
        let before = try await signIns(client, tenant: tenant, count: 20)
        print("  without idle connections: " + line(before))

        let clock = ContinuousClock()
        let start = clock.now
        let holder = try Holder(count: count, port: server.port)
        defer { holder.finish() }
        let answer = try await holder.firstLine()
        guard answer == "opened \(count)" else { throw BenchmarkFailure.setup("the idle connections: \(answer)") }
        // The holder's connects return once the system queued them; wait for the server to take them.
        let patience = clock.now + .seconds(60)
        while server.connectionCounts.open <= count, clock.now < patience {
            try await Task.sleep(for: .milliseconds(20))
        }
        let openNow = server.connectionCounts.open
        print(
            "  opened \(count) idle connections in "
                + String(format: "%.2f s", nanoseconds(clock.now - start) / 1e9)
                + "; the server holds \(openNow) open connections (with the signing-in client's)")
        guard openNow > count else { throw BenchmarkFailure.setup("the server holds \(openNow) connections only") }

        let during = try await signIns(client, tenant: tenant, count: 20)
        print("  a sign-in still completes next to them: " + line(during))
        print("  the server still holds \(server.connectionCounts.open) open connections")
    }

    /// `count` SDK sign-ins one after the other; their latencies in nanoseconds.
    static func signIns(_ client: NativeAuthClient, tenant: EmulatedTenant, count: Int)
        async throws -> Stats
    {
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<count {
            let begin = clock.now
            try await ServerLoad.sdkSignIn(client, username: username, tenant: tenant)
            samples.append(nanoseconds(clock.now - begin))
        }
        return Stats(samples)
    }

    static func line(_ stats: Stats) -> String {
        func ms(_ ns: Double) -> String { String(format: "%.2f ms", ns / 1e6) }
        return "\(stats.samples.count) sign-ins, p50=\(ms(stats.percentile(0.5))) max=\(ms(stats.samples.last ?? 0))"
    }

    /// The other process, holding the idle connections until its standard input closes.
    final class Holder: Sendable {
        private let process: Process
        private let input: Pipe
        private let output: Pipe

        init(count: Int, port: UInt16) throws {
            process = Process()
            process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--hold-idle", String(count), "--port", String(port)]
            input = Pipe()
            output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        /// The holder's first line: `opened N`, or why it could not.
        func firstLine() async throws -> String {
            let handle = output.fileHandleForReading
            return await withCheckedContinuation { continuation in
                Thread {
                    var line: [UInt8] = []
                    while true {
                        let data = handle.readData(ofLength: 1)
                        guard let byte = data.first, byte != UInt8(ascii: "\n") else { break }
                        line.append(byte)
                    }
                    continuation.resume(returning: String(decoding: line, as: UTF8.self))
                }.start()
            }
        }

        /// Closes the holder's standard input: it closes its connections and exits.
        func finish() {
            try? input.fileHandleForWriting.close()
        }
    }

    /// Run in the holder process: opens `count` connections to 127.0.0.1:`port`, prints
    /// `opened N` (or why it could not), then holds them until standard input closes.
    static func hold(count: Int, port: UInt16) -> Never {
        LoopbackHTTPServer.raiseOpenFileLimit(to: count + 64)
        var descriptors: [Int32] = []
        descriptors.reserveCapacity(count)
        for _ in 0..<count {
            let descriptor = LoopbackHTTPServer.connectClient(port: port)
            guard descriptor >= 0 else {
                say("failed after \(descriptors.count) connections: errno \(-descriptor)")
                exit(1)
            }
            descriptors.append(descriptor)
        }
        say("opened \(count)")
        var byte: UInt8 = 0
        while read(0, &byte, 1) > 0 {}
        for descriptor in descriptors { close(descriptor) }
        exit(0)
    }

    /// Writes `line` to standard output at once (the parent waits for it).
    private static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            written += count
        }
    }
}
