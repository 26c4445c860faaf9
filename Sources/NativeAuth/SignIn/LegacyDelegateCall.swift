/// Calls a delegate method under its deprecated name, for the default implementations of the
/// new names: a delegate written before a rename keeps working.
///
/// The calls are made through ``LegacyDelegateCalling``, whose one witness is deprecated, so the
/// SDK compiles without warnings while the deprecated names stay deprecated for apps.
@MainActor
struct LegacyDelegateCall: LegacyDelegateCalling {
    @available(*, deprecated, message: "Calls a delegate method by its deprecated name.")
    func mfaRequestChallengeError(_ delegate: any MFARequestChallengeDelegate, _ error: MFARequestChallengeError) {
        delegate.onMFARequestChallengeError(error: error)
    }

    @available(*, deprecated, message: "Calls a delegate method by its deprecated name.")
    func registerStrongAuthChallengeError(
        _ delegate: any RegisterStrongAuthChallengeDelegate, _ error: RegisterStrongAuthChallengeError
    ) {
        delegate.onRegisterStrongAuthChallengeError(error: error)
    }
}

/// The calls ``LegacyDelegateCall`` makes.
@MainActor
protocol LegacyDelegateCalling {
    func mfaRequestChallengeError(_ delegate: any MFARequestChallengeDelegate, _ error: MFARequestChallengeError)
    func registerStrongAuthChallengeError(
        _ delegate: any RegisterStrongAuthChallengeDelegate, _ error: RegisterStrongAuthChallengeError)
}
