import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The rules of Docs/Design.md, for every state of every flow (the catalogue's kinds, each reached on
/// the emulator): while an action runs a second one fails at once and sends nothing; a successful
/// action spends the state; a spent state refuses and sends nothing.
@Suite("Every state is single-flight and spent after success", .hangLimit)
struct AllStatesRulesTests {
    @Test(arguments: FlowStateVariant.all)
    func singleFlightAndSpent(variant: FlowStateVariant) async throws {
        let name = variant.typeName
        let harness = EmulatorHarness()
        let gate = GatedTransport(harness.tenant)
        let fixture = FlowFixture(harness: harness, transport: gate, protocolVersion: variant.protocolVersion)
        let state = try await fixture.reach(variant.kind)
        let act = { @Sendable in await fixture.forward(state).outcome }
        gate.close()
        let before = harness.tenant.receivedRequests.count
        let first = Task { await act() }
        await gate.waitUntilHeld(1)
        let second = await act()
        #expect(second.failure?.isStateBusy == true, "\(name): a second action while busy must fail at once")
        #expect(gate.heldCount == 1, "\(name): the busy action must send nothing")
        gate.open()
        let firstOutcome = await first.value
        #expect(firstOutcome.failure == nil, "\(name): the action must succeed: \(firstOutcome)")
        let sent = harness.tenant.receivedRequests.count
        #expect(sent > before)
        let third = await act()
        #expect(third.failure?.isStateAlreadyUsed == true, "\(name): a spent state must refuse")
        #expect(harness.tenant.receivedRequests.count == sent, "\(name): a spent state sends nothing")
        if variant.protocolVersion == .v2 {
            let v1 = harness.tenant.receivedRequests.map(\.url.path).filter {
                $0.contains("/v1.0/") || $0.hasSuffix("/initiate") || $0.hasSuffix("/oauth2/v2.0/challenge")
                    || $0.hasSuffix("/introspect")
            }
            #expect(v1.isEmpty, "\(name): a V2 client sent V1 requests: \(v1)")
        }
    }

    /// What an app can print of a state (its description, its reflection, `dump`) names no code,
    /// password, continuation token or link, before and after its action.
    @Test(arguments: FlowStateVariant.all)
    func descriptionsShowNoSecret(variant: FlowStateVariant) async throws {
        let fixture = FlowFixture(protocolVersion: variant.protocolVersion)
        let state = try await fixture.reach(variant.kind)
        var shown = Self.renderings(state)
        _ = await fixture.forward(state)
        shown += Self.renderings(state)
        let secrets = Self.secrets(fixture.harness)
        #expect(!secrets.isEmpty)
        for text in shown {
            let leaked = secrets.first { text.contains($0) }
            #expect(leaked == nil, "\(variant.typeName) shows a secret in \(text)")
        }
        #expect(!shown.contains { $0.contains("/api/") || $0.contains("/oauth2/") }, "\(variant.typeName) shows a link")
    }

    static func renderings(_ state: FlowState) -> [String] {
        var dumped = ""
        dump(state.object, to: &dumped)
        return [state.description, String(reflecting: state.object), "\(state.object)", dumped]
    }

    /// The codes the tenant sent, the passwords, and every token and code on the wire, in form
    /// (V1, and V2's OAuth steps) and JSON (V2's journeys) bodies, requests and answers.
    static func secrets(_ harness: EmulatorHarness) -> Set<String> {
        var secrets = harness.secretsSeen(extra: [FlowFixture.newPassword])
        let keys: Set<String> = [
            "continuationToken", "continuation_token", "otp", "password", "newPassword", "code", "access_token",
            "refresh_token", "id_token",
        ]
        for request in harness.tenant.receivedRequests {
            let body = request.body ?? Data()
            if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
                for (key, value) in object where keys.contains(key) {
                    if let text = value as? String, text.count >= 6 { secrets.insert(text) }
                }
            } else {
                for field in String(decoding: body, as: UTF8.self).split(separator: "&") {
                    let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                    if pair.count == 2, keys.contains(pair[0]), pair[1].count >= 6 {
                        secrets.insert(pair[1].removingPercentEncoding ?? pair[1])
                    }
                }
            }
        }
        return secrets
    }
}
