import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The request timeout on a kept-alive connection: the silence before a request and the request
/// itself are each bounded by it, so a request a client begins just before the silence limit is
/// not cut off while it arrives.
@Suite("Server: the request timeout on a kept-alive connection", .hangLimit)
struct ServerKeepAliveTimeoutTests {
    static let request = "GET /emulator/v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test("a request begun late on a kept-alive connection has the whole timeout from its first byte")
    func aRequestBegunLateIsServed() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.requestTimeout = .milliseconds(1_000)
        let served = try ServedTenant(configuration: configuration)
        let port = served.port
        let statuses = try await RawHTTP.onThread { () -> [Int] in
            let connection = try RawConnection(port: port)
            connection.send(Self.request)
            let first = try connection.readResponse()
            let bytes = Array(Self.request.utf8)
            // Silent for 600 of the 1,000 ms, then the next request in two parts 600 ms apart: it
            // ends after the silence limit, within the limit counted from its first byte. The
            // waits are bounded polls that find nothing to read.
            _ = connection.isReadable(within: 600)
            connection.send(Array(bytes.prefix(10)))
            _ = connection.isReadable(within: 600)
            connection.send(Array(bytes.dropFirst(10)))
            let second = try connection.readResponse()
            return [first?.status ?? 0, second?.status ?? 0]
        }
        #expect(statuses == [200, 200])
        await served.server.stop()
    }
}
