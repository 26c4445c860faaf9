import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuthDemo

@Suite("Demo: the email shape check", .hangLimit)
struct EmailAddressTests {
    @Test(
        "addresses with the shape of one pass",
        arguments: ["ada@example.com", "a.b+tag@mail.example.co.uk", "x@sub-domain.example", "josé@exämple.de"])
    func valid(address: String) {
        #expect(EmailAddress.problem(with: address) == nil)
    }

    @Test(
        "typos are caught, each with what is wrong",
        arguments: [
            ("", "empty"), ("ada example.com", "space"), ("ada.example.com", "no @"),
            ("ada@@example.com", "more than one @"), ("@example.com", "before the @"), ("ada@", "after the @"),
            ("ada@example", "no dot"), ("ada@example..com", "empty part"), ("ada@.example.com", "empty part"),
            ("ada@example.com.", "empty part"), ("ada@exa_mple.com", "letters, digits"),
            ("ada@-example.com", "hyphens"),
        ])
    func invalid(address: String, problem: String) {
        let found = EmailAddress.problem(with: address)
        #expect(found?.contains(problem) == true, "\(address): \(found ?? "accepted")")
    }
}

@Suite("Demo: the emulated tenant's snapshot file", .hangLimit)
struct SnapshotFileTests {
    @Test("the file says it holds passwords in plain text, and still loads")
    func noteAndRestore() throws {
        let tenant = EmulatorSetup.makeTenant()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nativeauth-demo-tests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("emulated-tenant.json")
        EmulatorSetup.save(tenant, to: file)

        let data = try Data(contentsOf: file)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let note = try #require(object["note"] as? String)
        #expect(note.contains("plain text"))
        #expect(object["users"] != nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        // A fresh tenant loads it: the note is ignored.
        let restored = EmulatedTenant(tenantSubdomain: "demo")
        try restored.restore(from: data)
        #expect(restored.user(named: "ada@example.com")?.password == EmulatorSetup.demoPassword)
    }

    @Test("anything but a JSON object is written as it is")
    func otherDataUnchanged() {
        #expect(EmulatorSetup.snapshotFileContents(Data("[]".utf8)) == Data("[]".utf8))
        #expect(EmulatorSetup.snapshotFileContents(Data("{}".utf8)) == Data("{}".utf8))
        #expect(EmulatorSetup.snapshotFileContents(Data()) == Data())
    }
}
