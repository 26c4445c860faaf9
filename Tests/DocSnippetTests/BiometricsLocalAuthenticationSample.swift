// swift-format-ignore-file
#if canImport(LocalAuthentication) && !os(tvOS) && !os(watchOS)
// snippet: biometrics-local-authentication
import NativeAuth

func makeProtectedClient() throws -> NativeAuthClient {
    var configuration = try NativeAuthConfiguration(
        clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
    configuration.userPresence = UserPresenceRequirement(
        policy: .session(timeout: 300),  // one Face ID for five minutes of refreshes
        reason: "Unlock your orders",
        checker: LocalAuthenticationPresenceChecker())  // allowsPasscode: true to accept the passcode
    return NativeAuthClient(configuration: configuration)
}
// snippet: end
#endif
