import Foundation
import NativeAuth
import NativeAuthEmulator

/// What the command line asks for.
enum Options: Equatable {
    /// Run on the in-process emulated tenant, asking for `scopes` (a demo scope when empty).
    case emulator(scopes: [String], storage: Storage, protocolVersion: NativeAuthProtocol = .v1)
    /// Run on a real tenant.
    case tenant(
        authority: URL, clientId: String, resource: URL?, scopes: [String], storage: Storage,
        protocolVersion: NativeAuthProtocol = .v1)
    /// Sign in with OpenID Connect in the browser, against any provider.
    case web(issuer: URL, clientId: String, scopes: [String], port: UInt16?, storage: Storage)
    /// Sign in with the device code grant (RFC 8628), against any provider that offers it.
    case webDevice(issuer: URL, clientId: String, scopes: [String], storage: Storage)
    /// Serve an emulated tenant over HTTP on 127.0.0.1 until interrupted.
    case serve(ServeOptions)
    /// Print the usage and stop.
    case help

    /// `serve`'s options.
    struct ServeOptions: Equatable {
        /// The port; `nil` lets the system choose a free one.
        var port: UInt16?
        /// A tenant snapshot file whose users and refresh tokens replace the demo users.
        var seed: URL?
        /// A delay before each answer, in milliseconds.
        var latencyMilliseconds = 0
        /// Whether the tenant runs on a manual clock that the control API can move.
        var manualClock = false
        /// The tenant's subdomain.
        var tenant = "demo"
        /// The client id of the app registered in the tenant.
        var clientId = "emulator-client-id"
        /// The tenant settings to change, in order: each a JSON object member (`"dpop":"required"`)
        /// that ``EmulatorSettings/apply(json:)`` takes.
        var settings: [String] = []
    }

    /// Where the demo keeps the signed-in account (and, on the emulator, the tenant's users and
    /// refresh tokens), so it starts again signed in.
    enum Storage: Equatable {
        case directory(URL)
        case memory
    }

    /// `~/.local/share/nativeauth-demo` on Linux (`$XDG_DATA_HOME` when set), Application Support on Apple platforms.
    static var defaultDataDirectory: URL {
        FileCredentialStore.defaultDirectory(applicationName: "nativeauth-demo").deletingLastPathComponent()
    }

    static let usage = """
        Usage: nativeauth [--authority URL --client-id ID [--resource URL]] [--scope SCOPE]...
                          [--data-dir DIR | --in-memory] [--protocol v1|v2]
               nativeauth web --issuer URL --client-id ID [--scope SCOPE]... [--port N | --device]
                              [--data-dir DIR | --in-memory]
               nativeauth serve [--port N] [--seed FILE] [--latency MS] [--manual-clock]
                                [--tenant NAME] [--client-id ID] [--par MODE] [--dpop MODE]
                                [--setting NAME=VALUE]...
               nativeauth --help

        An interactive demo of native authentication with Microsoft Entra External ID.

        With no options it runs on an emulated tenant inside the process, seeded with demo users,
        and shows the codes that tenant sends by email. Its menu entry "Sign in with the browser"
        (and a sign-in the tenant sends to the browser) serves that tenant on 127.0.0.1 and opens
        your browser on its sign-in page, or prints the address to open.

        Options:
          --authority URL    the tenant's authority, such as
                             https://contoso.ciamlogin.com/contoso.onmicrosoft.com
          --client-id ID     the application (client) id registered in that tenant
          --resource URL     an API to call with the access token (menu item "Call the protected resource")
          --scope SCOPE      a scope to ask for, beyond openid profile offline_access; repeat for more
                             (on the emulator, api://demo/notes.read when none is given)
          --data-dir DIR     where the signed-in account is kept between runs (and, on the emulator,
                             the emulated tenant's users and refresh tokens); by default
                             ~/.local/share/nativeauth-demo
          --in-memory        keep nothing: every run starts signed out with a fresh tenant
                             (not together with --data-dir)
          --protocol v1|v2   the native authentication protocol: v1 (the default) or v2, the
                             server-driven protocol Microsoft marks experimental (Docs/NativeAuthV2.md);
                             on the emulator, v2 also lets a user with a password choose a code instead
          -h, --help         show this help

        --authority and --client-id go together. Input can be piped; the demo ends at end of input.

        nativeauth web signs in with OpenID Connect in your browser (authorization code with PKCE)
        against any provider: it listens on http://127.0.0.1:PORT/callback (register that redirect
        URI; --port chooses the port, a free one by default), opens the browser (or prints the URL),
        verifies the ID token's signature, and keeps the account like the native demo (--data-dir,
        --in-memory). offline_access is asked for, so the account can be refreshed.
        With --device it uses the device code grant instead: it prints a code and an address to open
        on another device (a phone, a computer), and waits until you have signed in there.

        nativeauth serve serves an emulated tenant over HTTP on 127.0.0.1 (never another interface)
        until Ctrl-C, for simulators, UI tests and other clients: it prints the authority and client
        id to configure an app with, and the base of the control API (users, codes, forced answers,
        clock, reset, snapshots; Docs/EmulatorServer.md lists every endpoint). It starts with the
        demo users; --seed FILE replaces them with the users and sessions of a tenant snapshot.
        Sign-up asks for a displayName and a country: two capital letters, such as GB ([A-Z]{2}).
        --latency MS delays every answer; --manual-clock runs the tenant on a clock that only the
        control API moves; --tenant and --client-id name the tenant (default demo) and its app
        (emulator-client-id). --par and --dpop turn on pushed authorization requests and DPoP
        (MODE: offered or required; off by default, as Entra); --setting NAME=VALUE changes any
        other tenant setting (repeat it for more; VALUE is JSON, or text taken as a string, such as
        --setting authorizationChallengeEndpoint=true or --setting redirectURIs='["app:/cb"]'),
        as PATCH /emulator/v1/settings does while it runs.
        """

    /// Why the command line could not be understood.
    struct Invalid: Error {
        let reason: String
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(Invalid) -> Options {
        if arguments.first == "web" { return try parseWeb(Array(arguments.dropFirst())) }
        if arguments.first == "serve" { return try parseServe(Array(arguments.dropFirst())) }
        var authority: URL?
        var clientId: String?
        var resource: URL?
        var scopes: [String] = []
        var storageGiven: Storage?
        var protocolVersion = NativeAuthProtocol.v1
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (name, inlineValue) = split(argument)
            func value() throws(Invalid) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw Invalid(reason: "\(name) needs a value.")
                }
                return next
            }
            switch name {
            case "-h", "--help":
                return .help
            case "--authority":
                authority = try url(value(), for: name)
                if let authority { try checkCiamloginHost(authority) }
            case "--client-id":
                let id = try value().trimmingCharacters(in: .whitespaces)
                guard !id.isEmpty else { throw Invalid(reason: "--client-id needs a value.") }
                clientId = id
            case "--resource":
                resource = try url(value(), for: name)
            case "--scope":
                scopes += try value().split(separator: " ").map(String.init)
            case "--data-dir", "--in-memory":
                storageGiven = try parseStorage(name, inlineValue: inlineValue, after: storageGiven, value: value)
            case "--protocol":
                switch try value().lowercased() {
                case "v1": protocolVersion = .v1
                case "v2": protocolVersion = .v2
                default: throw Invalid(reason: "--protocol takes v1 or v2.")
                }
            default:
                throw Invalid(reason: "Unknown argument '\(argument)'.")
            }
        }
        let storage = storageGiven ?? .directory(defaultDataDirectory)
        switch (authority, clientId) {
        case (nil, nil):
            guard resource == nil else {
                throw Invalid(reason: "--resource needs --authority and --client-id; the emulator has its own.")
            }
            return .emulator(scopes: scopes, storage: storage, protocolVersion: protocolVersion)
        case (let authority?, let clientId?):
            return .tenant(
                authority: authority, clientId: clientId, resource: resource, scopes: scopes, storage: storage,
                protocolVersion: protocolVersion)
        case (nil, _):
            throw Invalid(reason: "--client-id needs --authority too.")
        case (_, nil):
            throw Invalid(reason: "--authority needs --client-id too.")
        }
    }

    /// `web`'s options.
    static func parseWeb(_ arguments: [String]) throws(Invalid) -> Options {
        var issuer: URL?
        var clientId: String?
        var scopes: [String] = []
        var port: UInt16?
        var device = false
        var storage: Storage?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (name, inlineValue) = split(argument)
            func value() throws(Invalid) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw Invalid(reason: "\(name) needs a value.")
                }
                return next
            }
            switch name {
            case "-h", "--help": return .help
            case "--issuer": issuer = try url(value(), for: name)
            case "--client-id":
                let id = try value().trimmingCharacters(in: .whitespaces)
                guard !id.isEmpty else { throw Invalid(reason: "--client-id needs a value.") }
                clientId = id
            case "--scope": scopes += try value().split(separator: " ").map(String.init)
            case "--port":
                guard let number = UInt16(try value()), number > 0 else {
                    throw Invalid(reason: "--port needs a port number from 1 to 65535.")
                }
                port = number
            case "--device":
                guard inlineValue == nil else { throw Invalid(reason: "--device takes no value.") }
                device = true
            case "--data-dir", "--in-memory":
                storage = try parseStorage(name, inlineValue: inlineValue, after: storage, value: value)
            default: throw Invalid(reason: "Unknown argument '\(argument)' for web.")
            }
        }
        guard let issuer else { throw Invalid(reason: "web needs --issuer.") }
        guard let clientId else { throw Invalid(reason: "web needs --client-id.") }
        if device {
            guard port == nil else { throw Invalid(reason: "--port has no use with --device.") }
            let storage = storage ?? .directory(defaultDataDirectory)
            return .webDevice(issuer: issuer, clientId: clientId, scopes: scopes, storage: storage)
        }
        return .web(
            issuer: issuer, clientId: clientId, scopes: scopes, port: port,
            storage: storage ?? .directory(defaultDataDirectory))
    }

    /// `serve`'s options.
    static func parseServe(_ arguments: [String]) throws(Invalid) -> Options {
        var options = ServeOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (name, inlineValue) = split(argument)
            func value() throws(Invalid) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw Invalid(reason: "\(name) needs a value.")
                }
                return next
            }
            switch name {
            case "-h", "--help": return .help
            case "--port":
                guard let number = UInt16(try value()), number > 0 else {
                    throw Invalid(reason: "--port needs a port number from 1 to 65535.")
                }
                options.port = number
            case "--seed":
                let path = try value()
                guard !path.isEmpty else { throw Invalid(reason: "--seed needs a file.") }
                options.seed = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            case "--latency":
                guard let milliseconds = Int(try value()), (0...60_000).contains(milliseconds) else {
                    throw Invalid(reason: "--latency needs a number of milliseconds from 0 to 60000.")
                }
                options.latencyMilliseconds = milliseconds
            case "--manual-clock":
                options.manualClock = true
            case "--tenant":
                let tenant = try value().lowercased()
                guard !tenant.isEmpty, tenant.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
                else { throw Invalid(reason: "--tenant needs a subdomain of letters, digits and '-'.") }
                options.tenant = tenant
            case "--client-id":
                let id = try value().trimmingCharacters(in: .whitespaces)
                guard !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                    throw Invalid(reason: "--client-id needs a value of printable characters without spaces.")
                }
                options.clientId = id
            case "--par":
                options.settings.append(try setting("pushedAuthorizationRequests", try value(), option: name))
            case "--dpop":
                options.settings.append(try setting("dpop", try value(), option: name))
            case "--setting":
                let change = try value()
                guard let equals = change.firstIndex(of: "=") else {
                    throw Invalid(reason: "--setting needs NAME=VALUE, such as --setting dpop=required.")
                }
                options.settings.append(
                    try setting(String(change[..<equals]), String(change[change.index(after: equals)...]), option: name)
                )
            default: throw Invalid(reason: "Unknown argument '\(argument)' for serve.")
            }
        }
        return .serve(options)
    }

    /// The JSON member that sets the tenant setting `name` to `value` (JSON, or else text taken
    /// as a string), checked against the emulator's settings.
    static func setting(_ name: String, _ value: String, option: String) throws(Invalid) -> String {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw Invalid(reason: "\(option): '\(name)' is not a setting name (GET /emulator/v1/settings lists them).")
        }
        var scratch = EmulatorSettings()
        let literal = "\"\(name)\":\(value)"
        if (try? scratch.apply(json: "{\(literal)}")) != nil { return literal }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let text = "\"\(name)\":\"\(escaped)\""
        do {
            try scratch.apply(json: "{\(text)}")
        } catch {
            throw Invalid(reason: "\(option): \(error.message)")
        }
        return text
    }

    /// `--data-dir DIR` or `--in-memory`, refused when the other one (or the same one) came before:
    /// keeping nothing and keeping things in a directory cannot both be meant.
    private static func parseStorage(
        _ name: String, inlineValue: String?, after earlier: Storage?, value: () throws(Invalid) -> String
    ) throws(Invalid) -> Storage {
        switch (earlier, name) {
        case (.memory?, "--data-dir"), (.directory?, "--in-memory"):
            throw Invalid(
                reason:
                    "--in-memory and --data-dir contradict each other: --in-memory keeps nothing, --data-dir says where to keep the account. Give one of them."
            )
        case (_?, _):
            throw Invalid(reason: "\(name) is given twice.")
        case (nil, "--in-memory"):
            guard inlineValue == nil else { throw Invalid(reason: "--in-memory takes no value.") }
            return .memory
        case (nil, _):
            let path = try value()
            guard !path.isEmpty else { throw Invalid(reason: "--data-dir needs a directory.") }
            return .directory(URL(fileURLWithPath: (path as NSString).expandingTildeInPath, isDirectory: true))
        }
    }

    /// Refuses a `ciamlogin.com` host whose tenant subdomain has more than one label, such as
    /// `a.b.ciamlogin.com`: the tenant's subdomain is a single DNS label (`contoso.ciamlogin.com`).
    static func checkCiamloginHost(_ authority: URL) throws(Invalid) {
        guard let host = authority.host?.lowercased(), host.hasSuffix(".ciamlogin.com") else { return }
        let subdomain = host.dropLast(".ciamlogin.com".count)
        guard subdomain.contains(".") else { return }
        let labels = subdomain.split(separator: ".", omittingEmptySubsequences: false).count
        throw Invalid(
            reason:
                "--authority: the tenant subdomain before ciamlogin.com must be a single label (such as contoso.ciamlogin.com), but '\(subdomain)' in '\(host)' has \(labels) labels."
        )
    }

    /// `--name=value` as `("--name", "value")`; anything else as `(argument, nil)`.
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func url(_ text: String, for name: String) throws(Invalid) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme),
            url.host != nil
        else { throw Invalid(reason: "\(name) needs an http(s) URL, not '\(text)'.") }
        return url
    }
}
