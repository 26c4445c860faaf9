import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// Keeps Docs/EmulatorServer.md whole: it lists every route the server handles and no other, every
/// setting `GET /info` reports, every member `POST /users` takes and every field of the sign-in form.
@Suite("Emulator server: the reference page", .hangLimit)
struct ServerReferenceDocTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Server
        .deletingLastPathComponent()  // NativeAuthEmulatorTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
    static let page = repository.appendingPathComponent("Docs/EmulatorServer.md")

    static func text() throws -> String { try String(contentsOf: page, encoding: .utf8) }

    /// The routes the page lists: code spans `METHOD {authority}/path` and `METHOD /emulator/v1…`,
    /// as `METHOD path` with any query left off.
    static func documentedRoutes(in text: String) -> Set<String> {
        var routes: Set<String> = []
        for span in codeSpans(in: text) {
            let parts = span.split(separator: " ")
            guard parts.count == 2, ["GET", "POST", "PUT", "DELETE", "PATCH"].contains(parts[0]) else { continue }
            let path = parts[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
            guard path.hasPrefix("{authority}/") || path.hasPrefix(EmulatorServer.controlPath) else { continue }
            routes.insert("\(parts[0]) \(path)")
        }
        return routes
    }

    /// The text of every single-backtick code span outside fenced blocks.
    static func codeSpans(in text: String) -> [Substring] {
        var spans: [Substring] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                fenced.toggle()
                continue
            }
            guard !fenced else { continue }
            var rest = line[...]
            while let open = rest.firstIndex(of: "`") {
                let after = rest[rest.index(after: open)...]
                guard let close = after.firstIndex(of: "`") else { break }
                spans.append(after[..<close])
                rest = after[after.index(after: close)...]
            }
        }
        return spans
    }

    /// Every route the server answers: each tenant endpoint under the authority, each control call.
    static var servedRoutes: Set<String> {
        Set(EmulatorEndpoint.allCases.map { "\($0.method) {authority}/\($0.rawValue)" })
            .union(ControlRoute.allCases.map { "\($0.method) \($0.path)" })
    }

    @Test("the page lists every route the server handles, and none it does not")
    func everyRoute() throws {
        let documented = Self.documentedRoutes(in: try Self.text())
        let served = Self.servedRoutes
        #expect(documented.count >= 36)
        #expect(served.subtracting(documented).isEmpty, "not on the page: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "not served: \(documented.subtracting(served).sorted())")
    }

    @Test("the server answers every route on the page: neither 404 for want of a route nor 405")
    func everyRouteIsAnswered() async throws {
        let served = try ServedTenant()
        _ = try await served.harness.startSignIn(Fixture.grace)  // a code for GET /codes/{address}
        served.harness.tenant.configure { $0.pushedAuthorizationRequests = .offered }  // else `par` answers 404
        served.harness.tenant.configure { $0.authorizationChallengeEndpoint = true }  // else 404 too
        served.harness.tenant.configure { $0.nativeAuthV2SMSRiskVerification = true }  // and `riskverify` too
        let samples = [
            "{authority}": served.server.authority.absoluteString, "{username}": Fixture.ada,
            "{address}": Fixture.grace, "{type}": "email", "{id}": "m-1",
        ]
        for route in Self.documentedRoutes(in: try Self.text()).sorted() {
            let parts = route.split(separator: " ")
            var path = String(parts[1])
            for (placeholder, value) in samples { path = path.replacingOccurrences(of: placeholder, with: value) }
            let url = try #require(
                URL(string: path.hasPrefix("http") ? path : served.server.baseURL.absoluteString + path))
            // DELETE last of all would remove Ada; a body that does not fit is still an answer.
            guard parts[0] != "DELETE" else { continue }
            let response = try await served.transport.send(HTTPRequest(method: String(parts[0]), url: url))
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(response.statusCode != 405, "\(route): \(text)")
            #expect(!text.contains("No endpoint answers") && !text.contains("No control call"), "\(route): \(text)")
        }
        await served.server.stop()
    }

    @Test("a path no endpoint answers is a 404 naming the URL the client used, not the tenant's own origin")
    func notFoundNamesTheClientsURL() async throws {
        let served = try ServedTenant()
        let url = try #require(URL(string: served.server.authority.absoluteString + "/no/such/path?x=1"))
        let response = try await served.transport.send(HTTPRequest(method: "GET", url: url))
        await served.server.stop()
        #expect(response.statusCode == 404)
        let body = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(body["error"] as? String == "not_found")
        #expect(body["error_description"] as? String == "No endpoint answers GET \(url.absoluteString).")
    }

    @Test("every EmulatorSettings property is in GET /info and in the page's settings table")
    func everySetting() async throws {
        let names = Mirror(reflecting: EmulatorSettings()).children.compactMap(\.label)
        #expect(names.count >= 20)
        let served = try ServedTenant()
        let info = try await served.control("GET", "/info")
        let settings = try #require(info["settings"] as? [String: Any])
        #expect(Set(settings.keys) == Set(names))
        #expect(settings["codeLength"] as? Int == 8)
        #expect(settings["resetJobOutcome"] as? String == "succeed")
        let text = try Self.text()
        for name in names {
            #expect(text.contains("| `\(name)` |"), "the settings table has no row for \(name)")
        }
        await served.server.stop()
    }

    @Test("every EmulatedUser property is a member of POST /users and a row of the page's schema")
    func everyUserMember() throws {
        let properties = Mirror(reflecting: EmulatedUser(username: "x")).children.compactMap(\.label)
        #expect(Set(properties) == Set(EmulatorControlAPI.userMembers))
        let methodProperties = Mirror(reflecting: EmulatedAuthMethod(id: "", channel: "", address: ""))
            .children.compactMap(\.label)
        #expect(Set(methodProperties) == Set(EmulatorControlAPI.methodMembers))
        let text = try Self.text()
        for name in properties {
            #expect(text.contains("| `\(name)` |"), "the POST /users table has no row for \(name)")
        }
    }

    @Test("every field of the sign-in and code forms is a row of the page's form table")
    func everyFormField() throws {
        let pages = [
            EmulatorLoginPage.signIn(action: "/t/login", context: "c", username: "", error: nil),
            EmulatorLoginPage.code(action: "/t/login", context: "c", target: "a***@b**.c", error: nil),
        ]
        var names: Set<String> = ["action"]  // the buttons'
        for html in pages {
            for input in EmulatedPage.tags(named: "input", in: html) {
                names.formUnion(input["name"].map { [$0] } ?? [])
            }
        }
        #expect(names == ["ctx", "username", "password", "code", "action"])
        let text = try Self.text()
        for name in names {
            #expect(text.contains("| `\(name)` |"), "the form table has no row for \(name)")
        }
    }
}
