import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The rules of Docs/Design.md, for every state of every flow (the catalogue's kinds, each reached on
/// the emulator): while an action runs a second one fails at once and sends nothing; a successful
/// action spends the state; a spent state refuses and sends nothing.
@Suite("Every state is single-flight and spent after success", .timeLimit(.minutes(1)))
struct AllStatesRulesTests {
    @Test(arguments: FlowStateKind.allCases)
    func singleFlightAndSpent(kind: FlowStateKind) async throws {
        let name = kind.typeName
        let harness = EmulatorHarness()
        let gate = GatedTransport(harness.tenant)
        let fixture = FlowFixture(harness: harness, transport: gate)
        let state = try await fixture.reach(kind)
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
    }
}
