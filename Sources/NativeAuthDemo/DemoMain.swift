import Foundation
import NativeAuth
import NativeAuthEmulator

/// `swift run nativeauth`: the interactive demo.
@main
struct DemoMain {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            Terminal.sayError("nativeauth: \(error.reason)\n")
            Terminal.sayError(Options.usage)
            exit(2)
        }
        let app: DemoApp
        switch options {
        case .help:
            Terminal.say(Options.usage)
            return
        case .emulator(let scopes, let storage, let protocolVersion):
            app = emulatorApp(
                scopes: scopes.isEmpty ? ["api://demo/notes.read"] : scopes, storage: storage,
                protocolVersion: protocolVersion)
        case .serve(let serveOptions):
            exit(await ServeCommand.run(serveOptions))
        case .web(let issuer, let clientId, let scopes, let port, let storage):
            await WebDemo.run(issuer: issuer, clientId: clientId, scopes: scopes, port: port, storage: storage)
            return
        case .webDevice(let issuer, let clientId, let scopes, let storage):
            await WebDeviceDemo.run(issuer: issuer, clientId: clientId, scopes: scopes, storage: storage)
            return
        case .tenant(let authority, let clientId, let resource, let scopes, let storage, let protocolVersion):
            app = tenantApp(
                authority: authority, clientId: clientId, resource: resource, scopes: scopes, storage: storage,
                protocolVersion: protocolVersion)
        }
        Interrupt.installForRun()
        await app.greet()
        do {
            try await app.run()
        } catch {
            // Standard input ended: a clean exit, as after "0) Quit".
        }
        await app.shutdown()
        Terminal.say("Bye.")
    }

    /// The app declares both capabilities, so MFA and method registration run natively.
    static let capabilities: Set<Capability> = [.mfaRequired, .registrationRequired]

    /// The credential store for `storage`, saying where it keeps the account.
    static func credentialStore(_ storage: Options.Storage) -> any CredentialStore {
        switch storage {
        case .memory:
            Terminal.say("Credentials are kept in memory only (--in-memory): nothing survives this run.")
            return InMemoryCredentialStore()
        case .directory(let directory):
            let credentials = directory.appendingPathComponent("credentials", isDirectory: true)
            Terminal.say(
                "Credentials are kept in \(credentials.path) (a file store): quit and start again to stay signed in.")
            return FileCredentialStore(directory: credentials)
        }
    }

    /// The demo on the emulated tenant, in process. A browser sign-in serves the same tenant on
    /// 127.0.0.1 (see ``EmulatorBrowserRoute``); `browser` says how the sign-in page is shown.
    static func emulatorApp(
        scopes: [String], storage: Options.Storage, browser: BrowserSettings = BrowserSettings(),
        protocolVersion: NativeAuthProtocol = .v1
    ) -> DemoApp {
        let tenant = EmulatorSetup.makeTenant()
        // Over V2, a user with a password may choose an emailed code instead.
        if protocolVersion == .v2 { tenant.configure { $0.nativeAuthV2FirstFactorChoice = true } }
        var snapshotFile: URL?
        if case .directory(let directory) = storage {
            snapshotFile = directory.appendingPathComponent("emulated-tenant.json")
            EmulatorSetup.restore(tenant, from: snapshotFile)
        }
        let printer = OutboxPrinter()
        let transport = EmailPrintingTransport(tenant: tenant, snapshotFile: snapshotFile, printer: printer)
        var configuration: NativeAuthConfiguration
        do {
            configuration = try NativeAuthConfiguration(
                clientId: tenant.clientId, authority: tenant.authority, capabilities: capabilities)
        } catch {
            Terminal.sayError("nativeauth: the emulated tenant's configuration is invalid: \(error.description)")
            exit(1)
        }
        configuration.protocolVersion = protocolVersion
        Terminal.say("Native authentication demo" + (protocolVersion == .v2 ? " (protocol V2)" : ""))
        Terminal.say(EmulatorSetup.banner(for: tenant))
        let store = credentialStore(storage)
        let route = EmulatorBrowserRoute(tenant: tenant, snapshotFile: snapshotFile, printer: printer, store: store)
        return DemoApp(
            client: NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store),
            transport: transport, resourceURL: tenant.url(for: .resource), scopes: scopes, browser: browser,
            emulatorRoute: route)
    }

    static func tenantApp(
        authority: URL, clientId: String, resource: URL?, scopes: [String], storage: Options.Storage,
        protocolVersion: NativeAuthProtocol = .v1
    ) -> DemoApp {
        var configuration: NativeAuthConfiguration
        do {
            configuration = try NativeAuthConfiguration(
                clientId: clientId, authority: authority, capabilities: capabilities)
            configuration.protocolVersion = protocolVersion
        } catch {
            Terminal.sayError("nativeauth: \(error.description)\n")
            Terminal.sayError(Options.usage)
            exit(2)
        }
        let transport = URLSessionTransport()
        Terminal.say("Native authentication demo")
        Terminal.say("Tenant: \(configuration.authority.absoluteString)   client id: \(configuration.clientId)")
        if let resource { Terminal.say("Protected resource: \(resource.absoluteString)") }
        let store = credentialStore(storage)
        return DemoApp(
            client: NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store),
            transport: transport, resourceURL: resource, scopes: scopes)
    }
}
