import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuthDemo

@Suite("Demo: command-line options", .hangLimit)
struct OptionsTests {
    static let authority = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"

    /// Why `arguments` are refused; fails the test when they are accepted.
    func refusal(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            let options = try Options.parse(arguments)
            Issue.record("\(arguments) were accepted as \(options)", sourceLocation: sourceLocation)
            return ""
        } catch {
            return error.reason
        }
    }

    @Test("no arguments run on the emulator, keeping things in the default directory")
    func noArguments() throws {
        #expect(try Options.parse([]) == .emulator(scopes: [], storage: .directory(Options.defaultDataDirectory)))
    }

    @Test("--protocol chooses V1 or V2, on the emulator and on a tenant; anything else is refused")
    func protocolVersion() throws {
        #expect(
            try Options.parse(["--in-memory", "--protocol", "v2"])
                == .emulator(scopes: [], storage: .memory, protocolVersion: .v2))
        #expect(try Options.parse(["--in-memory", "--protocol=V1"]) == .emulator(scopes: [], storage: .memory))
        let tenant = try Options.parse([
            "--authority", Self.authority, "--client-id", "id", "--in-memory", "--protocol", "v2",
        ])
        #expect(
            tenant
                == .tenant(
                    authority: URL(string: Self.authority)!, clientId: "id", resource: nil, scopes: [],
                    storage: .memory,
                    protocolVersion: .v2))
        for bad in [["--protocol", "v3"], ["--protocol"]] {
            #expect(throws: Options.Invalid.self) { try Options.parse(bad) }
        }
    }

    @Test("--in-memory and --data-dir each work alone")
    func storageAlone() throws {
        #expect(try Options.parse(["--in-memory"]) == .emulator(scopes: [], storage: .memory))
        #expect(
            try Options.parse(["--data-dir", "/tmp/demo-data"])
                == .emulator(scopes: [], storage: .directory(URL(fileURLWithPath: "/tmp/demo-data", isDirectory: true)))
        )
        #expect(
            try Options.parse(["--data-dir=/tmp/x", "--authority", Self.authority, "--client-id", "id"])
                == .tenant(
                    authority: URL(string: Self.authority)!, clientId: "id", resource: nil, scopes: [],
                    storage: .directory(URL(fileURLWithPath: "/tmp/x", isDirectory: true))))
    }

    @Test(
        "--in-memory with --data-dir is refused with a message that says why, in either order, in each mode",
        arguments: [
            ["--in-memory", "--data-dir", "/tmp/d"], ["--data-dir", "/tmp/d", "--in-memory"],
            ["--data-dir=/tmp/d", "--in-memory"],
            ["--authority", authority, "--client-id", "id", "--in-memory", "--data-dir", "/tmp/d"],
            ["web", "--issuer", "https://id.example.com", "--client-id", "id", "--data-dir", "/tmp/d", "--in-memory"],
        ])
    func contradictoryStorage(arguments: [String]) {
        let reason = refusal(arguments)
        #expect(reason.contains("--in-memory and --data-dir contradict each other"))
        #expect(reason.contains("keeps nothing"))
    }

    @Test("a storage option given twice, or --in-memory with a value, is refused")
    func storageRepeated() {
        #expect(refusal(["--in-memory", "--in-memory"]).contains("given twice"))
        #expect(refusal(["--data-dir", "/a", "--data-dir", "/b"]).contains("given twice"))
        #expect(refusal(["--in-memory=yes"]).contains("takes no value"))
        #expect(refusal(["--data-dir="]).contains("needs a directory"))
    }

    @Test(
        "every option the parser accepts is in the usage lines",
        arguments: [
            (["--authority", authority, "--client-id", "id"], ["--authority", "--client-id"]),
            (["--authority", authority, "--client-id", "id", "--resource", "https://api.example.com"], ["--resource"]),
            (["--scope", "api://demo/notes.read"], ["--scope"]),
            (["--data-dir", "/tmp/d"], ["--data-dir"]),
            (["--in-memory"], ["--in-memory"]),
            (["--help"], ["--help"]),
            (
                ["web", "--issuer", "https://id.example.com", "--client-id", "id", "--port", "8080"],
                ["--issuer", "--port"]
            ),
            (["web", "--issuer", "https://id.example.com", "--client-id", "id", "--device"], ["--device"]),
            (["web", "--issuer", "https://id.example.com", "--client-id", "id", "--in-memory"], ["--in-memory"]),
            (
                ["serve", "--port", "1", "--seed", "/tmp/s.json", "--latency", "5", "--manual-clock", "--tenant", "t"],
                ["--seed", "--latency", "--manual-clock", "--tenant"]
            ),
            (
                [
                    "serve", "--par", "required", "--dpop", "offered", "--setting",
                    "authorizationChallengeEndpoint=true",
                ],
                ["--par", "--dpop", "--setting"]
            ),
        ])
    func usageListsEveryOption(arguments: [String], names: [String]) throws {
        _ = try Options.parse(arguments)  // the parser knows them
        let synopsis = Options.usage.components(separatedBy: "\n\n")[0]
        #expect(synopsis.hasPrefix("Usage: "))
        let mode = arguments.first.flatMap { ["web", "serve"].contains($0) ? $0 : nil }
        // The lines of the mode: those that start with `nativeauth <mode>` and their continuations.
        var lines: [String] = []
        var inMode = false
        for line in synopsis.split(separator: "\n").map(String.init) {
            let trimmed = line.replacingOccurrences(of: "Usage: ", with: "").trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("nativeauth") {
                let words = trimmed.split(separator: " ")
                let lineMode = words.count > 1 && ["web", "serve"].contains(String(words[1])) ? String(words[1]) : nil
                inMode = lineMode == mode
            }
            if inMode { lines.append(line) }
        }
        let text = lines.joined(separator: "\n")
        for name in names {
            #expect(text.contains(name), "\(name) is missing from the usage lines of \(mode ?? "the demo")")
        }
    }

    @Test(
        "a ciamlogin.com host with a multi-label subdomain is refused: the subdomain must be a single label",
        arguments: [
            ("https://a.b.ciamlogin.com/a.onmicrosoft.com", "a.b"),
            ("https://contoso.eu.ciamlogin.com", "contoso.eu"),
        ])
    func multiLabelCiamloginHost(authority: String, subdomain: String) {
        let reason = refusal(["--authority", authority, "--client-id", "id"])
        #expect(reason.contains("must be a single label"))
        #expect(reason.contains("'\(subdomain)'"))
        #expect(reason.contains("2 labels"))
    }

    @Test("a single-label ciamlogin.com host and a custom domain are accepted")
    func singleLabelAccepted() throws {
        _ = try Options.parse(["--authority", Self.authority, "--client-id", "id"])
        _ = try Options.parse(["--authority", "https://login.contoso.com/tenant-id", "--client-id", "id"])
    }

    @Test("serve's --par, --dpop and --setting become tenant settings, checked before the server starts")
    func serveSettings() throws {
        let options = try Options.parse([
            "serve", "--par", "required", "--dpop=offered", "--setting", "authorizationChallengeEndpoint=true",
            "--setting", #"redirectURIs=["app:/cb"]"#, "--setting", "resetJobOutcome=fail",
        ])
        guard case .serve(let serve) = options else { throw TestFailure("expected serve, got \(options)") }
        #expect(
            serve.settings == [
                #""pushedAuthorizationRequests":"required""#, #""dpop":"offered""#,
                #""authorizationChallengeEndpoint":true"#, #""redirectURIs":["app:/cb"]"#,
                #""resetJobOutcome":"fail""#,
            ])
        var settings = EmulatorSettings()
        try settings.apply(json: "{" + serve.settings.joined(separator: ",") + "}")
        #expect(settings.pushedAuthorizationRequests == .required && settings.dpop == .offered)
        #expect(settings.authorizationChallengeEndpoint && settings.redirectURIs == ["app:/cb"])

        for (arguments, message) in [
            (["serve", "--par", "sometimes"], #"one of "off", "offered", "required""#),
            (["serve", "--setting", "codeLength=abc"], "whole number"),
            (["serve", "--setting", "noSuchThing=1"], "There is no setting noSuchThing"),
            (["serve", "--setting", "codeLength"], "NAME=VALUE"),
            (["serve", "--setting", "code-length=8"], "is not a setting name"),
        ] {
            let error = try #require(throws: Options.Invalid.self) { try Options.parse(arguments) }
            #expect(error.reason.contains(message), "\(arguments): \(error.reason)")
        }
    }
}
