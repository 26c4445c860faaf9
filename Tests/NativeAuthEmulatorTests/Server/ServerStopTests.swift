import Foundation
import LoopbackHTTP
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// What `stop()` has done by the time it returns: the port and every connection not answered for
/// the last time are closed, unfinished answers with them, and the server's counts say so.
@Suite("Server: what stop has closed when it returns", .hangLimit)
struct ServerStopTests {
    @Test("a connection whose answer outlives the drain is closed, and counted closed, before stop returns")
    func anUnfinishedAnswersConnectionIsClosedBeforeStopReturns() async throws {
        var configuration = EmulatorServer.Configuration()
        // Only stopping may close the connection, however loaded the machine; no drain.
        configuration.requestTimeout = .seconds(600)
        configuration.drainTimeout = .zero
        let served = try ServedTenant(configuration: configuration) { $0.latency = 5 }  // parks until moved
        let port = served.port
        let clock = served.harness.clock
        let idle = try await RawHTTP.openIdle(port: port, count: 2)
        defer { RawHTTP.closeAll(idle) }
        let form = "client_id=\(served.tenant.clientId)&username=ada%40contoso.com&challenge_type=oob%20redirect"
        let inFlight = Task {
            try await RawHTTP.onThread { () -> RawResponse? in
                let connection = try RawConnection(port: port)
                connection.send(
                    "POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\n"
                        + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)")
                return try connection.readResponse()
            }
        }
        try await requireUntil("the request to park in the tenant's latency") { clock.sleepers == 1 }
        try await requireUntil("three open connections") { served.server.connectionCounts.open == 3 }

        await served.server.stop()

        #expect(served.server.connectionCounts.open == 0)
        #expect(served.server.connectionCounts.accepted == 3)
        // Its client reads the end of the connection, with no answer.
        #expect(try await inFlight.value == nil)
    }
}
