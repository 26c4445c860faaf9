// snippet: web-device-sign-in
import Foundation
import NativeAuth

func signInOnAnotherDevice(client: WebAuthClient) async throws -> UserAccountResult {
    let state = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: ["offline_access"]))
    print("On your phone or computer, open \(state.verificationURI) and enter \(state.userCode)")
    if let link = state.verificationURIComplete { print("(or scan a QR code of \(link))") }
    return try await state.waitForCompletion()  // polls until approved, refused or expired
}
// snippet: end

// Compiled only: the emulator has no device authorization endpoint.
