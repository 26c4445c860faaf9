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
        case .emulator(let scopes):
            app = emulatorApp(scopes: scopes.isEmpty ? ["api://demo/notes.read"] : scopes)
        case .tenant(let authority, let clientId, let resource, let scopes):
            app = tenantApp(authority: authority, clientId: clientId, resource: resource, scopes: scopes)
        }
        do {
            try await app.run()
        } catch {
            // Standard input ended: a clean exit, as after "0) Quit".
        }
        Terminal.say("Bye.")
    }

    /// The app declares both capabilities, so MFA and method registration run natively.
    static let capabilities: Set<Capability> = [.mfaRequired, .registrationRequired]

    static func emulatorApp(scopes: [String]) -> DemoApp {
        let tenant = EmulatorSetup.makeTenant()
        let transport = EmailPrintingTransport(tenant: tenant)
        let configuration: NativeAuthConfiguration
        do {
            configuration = try NativeAuthConfiguration(
                clientId: tenant.clientId, authority: tenant.authority, capabilities: capabilities)
        } catch {
            Terminal.sayError("nativeauth: the emulated tenant's configuration is invalid: \(error.description)")
            exit(1)
        }
        Terminal.say("Native authentication demo")
        Terminal.say(EmulatorSetup.banner(for: tenant))
        return DemoApp(
            client: NativeAuthClient(configuration: configuration, transport: transport), transport: transport,
            resourceURL: tenant.url(for: .resource), scopes: scopes)
    }

    static func tenantApp(authority: URL, clientId: String, resource: URL?, scopes: [String]) -> DemoApp {
        let configuration: NativeAuthConfiguration
        do {
            configuration = try NativeAuthConfiguration(
                clientId: clientId, authority: authority, capabilities: capabilities)
        } catch {
            Terminal.sayError("nativeauth: \(error.description)\n")
            Terminal.sayError(Options.usage)
            exit(2)
        }
        let transport = URLSessionTransport()
        Terminal.say("Native authentication demo")
        Terminal.say("Tenant: \(configuration.authority.absoluteString)   client id: \(configuration.clientId)")
        if let resource { Terminal.say("Protected resource: \(resource.absoluteString)") }
        return DemoApp(
            client: NativeAuthClient(configuration: configuration, transport: transport), transport: transport,
            resourceURL: resource, scopes: scopes)
    }
}
