import Foundation
import NativeAuth
import NativeAuthEmulator

/// The in-process tenant the demo runs on when no real tenant is given.
enum EmulatorSetup {
    /// The password of every demo user that has one.
    static let demoPassword = "Demo-Passw0rd!"

    /// The demo users, each with what it shows: the line the banners print for it.
    static let users: [(user: EmulatedUser, summary: String)] = [
        EmulatedUser(
            username: "ada@example.com", password: demoPassword,
            attributes: ["displayName": "Ada Lovelace", "givenName": "Ada", "surname": "Lovelace"]),
        EmulatedUser(
            username: "grace@example.com",
            attributes: ["displayName": "Grace Hopper", "givenName": "Grace", "surname": "Hopper"]),
        EmulatedUser(
            username: "alan@example.com", password: demoPassword,
            attributes: ["displayName": "Alan Turing", "givenName": "Alan", "surname": "Turing"],
            mfaMethods: [EmulatedAuthMethod(id: "email-1", channel: "email", address: "alan.backup@example.com")]),
        EmulatedUser(
            username: "joan@example.com", password: demoPassword,
            attributes: ["displayName": "Joan Clarke", "givenName": "Joan", "surname": "Clarke"],
            requiresMethodRegistration: true),
        EmulatedUser(
            username: "hedy@example.com", password: demoPassword,
            attributes: ["displayName": "Hedy Lamarr", "givenName": "Hedy", "surname": "Lamarr"],
            requiresBrowser: true),
    ].map { ($0, summary(of: $0)) }

    /// What signing in as `user` takes, in one line, read from the user itself so it cannot
    /// disagree with it: the first factor, then MFA, a method to register, or the browser.
    static func summary(of user: EmulatedUser) -> String {
        var parts = [user.password == nil ? "passwordless: an email code" : "password \(demoPassword)"]
        if user.requiresBrowser {
            parts.append("browser only (a native sign-in answers browser-required)")
        }
        if let method = user.mfaMethods.first {
            parts.append("then MFA: a code by \(method.channel) to \(method.address)")
        }
        if user.requiresMethodRegistration {
            parts.append("then must register an MFA method")
        }
        if parts.count == 1, user.password != nil { parts[0] += " only" }
        return parts.joined(separator: "; ")
    }

    /// The attributes sign-up asks for; the country's pattern shows how values are validated: two
    /// capital letters, such as GB (the prompt and the banners say so).
    static let signUpAttributes = [
        EmulatedRequiredAttribute(name: "displayName", type: "string"),
        EmulatedRequiredAttribute(name: "country", type: "string", regex: "[A-Z]{2}"),
    ]

    /// A tenant on the system clock and random source, seeded with ``users``, that collects
    /// ``signUpAttributes`` at sign-up.
    static func makeTenant() -> EmulatedTenant {
        let tenant = EmulatedTenant(tenantSubdomain: "demo")
        tenant.configure { $0.requiredSignUpAttributes = signUpAttributes }
        for entry in users { tenant.addUser(entry.user) }
        return tenant
    }

    /// Loads the users and refresh tokens saved by an earlier run, if any.
    static func restore(_ tenant: EmulatedTenant, from file: URL?) {
        guard let file, let data = try? Data(contentsOf: file) else { return }
        do {
            try tenant.restore(from: data)
            Terminal.say("Restored the emulated tenant's users and sessions from \(file.path).")
        } catch {
            Terminal.say("⚠️  \(file.path) could not be used (\(error.reason)); starting with a fresh tenant.")
        }
    }

    /// Saves the tenant's users and refresh tokens, so the next run finds them.
    static func save(_ tenant: EmulatedTenant, to file: URL?) {
        guard let file else { return }
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try snapshotFileContents(tenant.snapshot()).write(to: file, options: .atomic)
            // It holds the demo users' passwords and refresh tokens: owner only.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        } catch {
            Terminal.sayError("nativeauth: could not save the emulated tenant to \(file.path)")
        }
    }

    /// What the snapshot file says about itself, in a top-level `note` that loading ignores.
    static let snapshotNote =
        "Written by the nativeauth demo for its emulated tenant. It holds the users' passwords in plain text and their refresh tokens: test data only; never put a real password here. Delete the file to start with a fresh tenant."

    /// The snapshot with ``snapshotNote`` as its first field. The emulator writes a JSON object,
    /// and ignores fields it does not know when it loads one; anything else is kept as it is.
    static func snapshotFileContents(_ snapshot: Data) -> Data {
        guard snapshot.first == UInt8(ascii: "{"), snapshot.dropFirst().first != UInt8(ascii: "}") else {
            return snapshot
        }
        let note = "{\"note\":\"\(snapshotNote)\","
        return Data(note.utf8) + snapshot.dropFirst()
    }

    /// The attributes sign-up asks for, with the rule of each that has one:
    /// `displayName and country (two capital letters, such as GB)`.
    static var signUpAttributeList: String {
        signUpAttributes.map { attribute in
            attribute.regex.map { "\(attribute.name) (\(AttributeRule.describe($0)))" } ?? attribute.name
        }.joined(separator: " and ")
    }

    /// The lines that introduce the emulated tenant.
    static func banner(for tenant: EmulatedTenant) -> String {
        var lines = [
            "Running on an emulated tenant inside this process (no network): \(tenant.authority.absoluteString)",
            "Codes the tenant sends by email are shown right here, like this: 📧",
            "",
            "Demo users:",
        ]
        let width = users.map(\.user.username.count).max() ?? 0
        for entry in users {
            let name = entry.user.username.paddedTo(width)
            lines.append("   \(name)   \(entry.summary)")
        }
        lines += [
            "",
            "Sign up any new address: the tenant sends a code, asks for a password if you gave none,",
            "then for \(signUpAttributeList). Reset password works for any user with a password.",
        ]
        return lines.joined(separator: "\n")
    }
}

/// Forwards requests to the emulated tenant and, after each answer, shows the emails the tenant
/// "sent" meanwhile, the way they would arrive in an inbox.
struct EmailPrintingTransport: HTTPTransport {
    let tenant: EmulatedTenant
    /// Where the tenant's users and refresh tokens are saved after every answer, if anywhere.
    let snapshotFile: URL?
    /// What carries the requests: the tenant itself (in process), or HTTP to the tenant served
    /// on 127.0.0.1.
    let forward: any HTTPTransport
    let printer: OutboxPrinter

    init(
        tenant: EmulatedTenant, snapshotFile: URL? = nil, forward: (any HTTPTransport)? = nil,
        printer: OutboxPrinter = OutboxPrinter()
    ) {
        self.tenant = tenant
        self.snapshotFile = snapshotFile
        self.forward = forward ?? tenant
        self.printer = printer
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        defer { EmulatorSetup.save(tenant, to: snapshotFile) }
        do {
            let response = try await forward.send(request)
            await printer.showNew(in: tenant.outbox)
            return response
        } catch {
            await printer.showNew(in: tenant.outbox)
            throw error
        }
    }
}

/// Remembers how many emails were shown, so each one is shown once.
actor OutboxPrinter {
    private var shown = 0

    func showNew(in outbox: [SentCode]) {
        guard outbox.count > shown else { return }
        for sent in outbox[shown...] {
            Terminal.say(Self.email(sent))
        }
        shown = outbox.count
    }

    static func email(_ sent: SentCode) -> String {
        let subject: String
        switch sent.purpose {
        case "signIn": subject = "Your sign-in code"
        case "signUp": subject = "Your sign-up code"
        case "resetPassword": subject = "Your password reset code"
        case "mfa": subject = "Your verification code"
        case "registration": subject = "Confirm your email address"
        default: subject = "Your code"
        }
        let rule = String(repeating: "─", count: 44)
        return """

               ╭─ 📧 To: \(sent.to)
               │  \(subject)
               │  Your code is \(sent.code)
               ╰\(rule)

            """
    }
}

extension String {
    /// The string padded with spaces to `length` characters.
    func paddedTo(_ length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
