import NativeAuthTestSupport
// Runs where LocalAuthentication is: checks the raw values the portable mapping uses against the
// framework's own `LAError.Code`, so that a mistake in UserPresenceError.swift cannot pass
// unnoticed on an Apple platform.
#if canImport(LocalAuthentication) && !os(tvOS) && !os(watchOS)
    import LocalAuthentication
    import Testing

    @testable import NativeAuth

    @Suite("Presence: LocalAuthentication's codes as the framework defines them", .hangLimit)
    struct LocalAuthenticationCodeTests {
        @Test func theRawValuesAreTheFrameworks() {
            #expect(LocalAuthenticationCode.authenticationFailed == LAError.Code.authenticationFailed.rawValue)
            #expect(LocalAuthenticationCode.userCancel == LAError.Code.userCancel.rawValue)
            #expect(LocalAuthenticationCode.userFallback == LAError.Code.userFallback.rawValue)
            #expect(LocalAuthenticationCode.systemCancel == LAError.Code.systemCancel.rawValue)
            #expect(LocalAuthenticationCode.passcodeNotSet == LAError.Code.passcodeNotSet.rawValue)
            #expect(LocalAuthenticationCode.biometryNotAvailable == LAError.Code.biometryNotAvailable.rawValue)
            #expect(LocalAuthenticationCode.biometryNotEnrolled == LAError.Code.biometryNotEnrolled.rawValue)
            #expect(LocalAuthenticationCode.biometryLockout == LAError.Code.biometryLockout.rawValue)
            #expect(LocalAuthenticationCode.appCancel == LAError.Code.appCancel.rawValue)
            #expect(LocalAuthenticationCode.invalidContext == LAError.Code.invalidContext.rawValue)
            #expect(LocalAuthenticationCode.notInteractive == LAError.Code.notInteractive.rawValue)
            #expect(LAErrorDomain == "com.apple.LocalAuthentication")
        }

        @Test func theCheckerIsAChecker() {
            let checker: any UserPresenceChecker = LocalAuthenticationPresenceChecker(allowsPasscode: true)
            #expect((checker as? LocalAuthenticationPresenceChecker)?.allowsPasscode == true)
        }
    }
#endif
