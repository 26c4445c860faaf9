import Testing
@testable import NativeAuthEmulator

@Test func smoke() { #expect(EmulatedTenant().clientId == "emulator-client-id") }
