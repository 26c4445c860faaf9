import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuthDemo

/// What `nativeauth serve` and the interactive demo tell a developer about their tenant: each demo
/// user with what signing in as them takes, and the rule of each sign-up attribute.
@Suite("Demo: the banners and the sign-up prompt", .hangLimit)
struct ServeBannerTests {
    @Test("each demo user's summary says what the user needs: MFA, registration, the browser, or a password only")
    func summariesFollowTheUsers() {
        for (user, summary) in EmulatorSetup.users {
            #expect(summary == EmulatorSetup.summary(of: user))
            #expect(summary.contains("browser only") == user.requiresBrowser, "\(user.username): \(summary)")
            #expect(summary.contains("MFA: a code") == !user.mfaMethods.isEmpty, "\(user.username): \(summary)")
            #expect(summary.contains("register an MFA method") == user.requiresMethodRegistration)
            #expect(summary.contains("passwordless") == (user.password == nil))
        }
        let plain = EmulatorSetup.users.filter { $0.summary.hasSuffix(" only") }.map(\.user.username)
        #expect(plain == ["ada@example.com"])
        #expect(EmulatorSetup.users.contains { $0.summary.contains("alan.backup@example.com") })
    }

    @Test("serve's banner lists every demo user with its summary, the sign-up rules and the reference page")
    func serveBanner() async throws {
        let tenant = EmulatedTenant(tenantSubdomain: "demo")
        let server = try EmulatorServer(tenant: tenant)
        let banner = ServeCommand.banner(server: server, options: Options.ServeOptions())
        let lines = banner.split(separator: "\n").map(String.init)
        for (user, summary) in EmulatorSetup.users {
            #expect(
                lines.contains { $0.contains(user.username) && $0.hasSuffix(summary) },
                "no line for \(user.username)")
        }
        #expect(banner.contains("Sign-up asks for displayName and country (two capital letters, such as GB)."))
        #expect(banner.contains("Docs/EmulatorServer.md"))
        await server.stop()
    }

    @Test("the interactive banner and the prompt say what a country must be")
    func countryRule() {
        #expect(
            EmulatorSetup.banner(for: EmulatorSetup.makeTenant()).contains("country (two capital letters, such as GB)"))
        #expect(AttributeRule.prompt("[A-Z]{2}") == "two capital letters, such as GB; must match [A-Z]{2}")
        #expect(AttributeRule.prompt("[0-9]+") == "must match [0-9]+")
        #expect(EmulatorSetup.signUpAttributes.contains { $0.name == "country" && $0.regex == "[A-Z]{2}" })
    }

    @Test("the reference page names every demo user and the country rule")
    func referencePage() throws {
        let page = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Docs/EmulatorServer.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        for (user, _) in EmulatorSetup.users {
            #expect(
                text.contains("| `\(user.username)` |"), "the page's demo users table has no row for \(user.username)")
        }
        #expect(text.contains("`[A-Z]{2}`"))
        #expect(text.contains(EmulatorSetup.demoPassword))
    }
}
