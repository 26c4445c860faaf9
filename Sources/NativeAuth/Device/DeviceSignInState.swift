import AuthSupport
public import Foundation

/// A device code sign-in (RFC 8628) waiting for the user: show ``userCode`` and
/// ``verificationURI`` (or ``verificationURIComplete``, as a QR code for instance), then call
/// ``waitForCompletion()``.
///
/// The user opens the page on another device (a phone, a computer), signs in there and enters the
/// code; meanwhile ``waitForCompletion()`` polls the provider's token endpoint.
///
/// The state is single-flight and single-use, like the native flows' states: a second
/// ``waitForCompletion()`` while one runs fails at once with ``WebSignInError/isStateBusy``; once
/// the wait has ended in a sign-in, a refusal or the code's expiry, the state answers
/// ``WebSignInError/isStateAlreadyUsed``. A wait that was cancelled, or that ended because the
/// provider could not be reached or failed (a 5xx, `server_error`), leaves the state usable: wait
/// again while the code lives.
///
/// The device code itself is a secret: it appears in no description, log or error.
public final class DeviceSignInState: Sendable, CustomStringConvertible {
    /// The code the user enters at the verification page, as the provider wrote it.
    public let userCode: String
    /// The page where the user enters ``userCode`` (`verification_uri`, or `verification_url` as
    /// Google spells it).
    public let verificationURI: URL
    /// The verification page with the user code already in it, when the provider sent one: for a
    /// QR code or a link the user opens without typing the code.
    public let verificationURIComplete: URL?
    /// When the device and user codes expire, on the client's clock
    /// (``WebAuthConfiguration/clock``). The wait stops there.
    public let expiresOn: Date
    /// The sign-in's correlation id, sent as `client-request-id` with each request.
    public let correlationId: UUID

    private let poller: DeviceTokenPoller
    private let provider: WebProvider
    private let accounts: AccountManager
    private let metadata: ProviderMetadata
    private let scopes: [String]
    private let dpopKey: DPoPBoundKey?
    private let phase = Locked<WebStatePhase>(.ready)

    init(
        answer: DeviceAuthorizationAnswer, provider: WebProvider, accounts: AccountManager,
        metadata: ProviderMetadata, scopes: [String], correlationId: UUID, dpopKey: DPoPBoundKey? = nil
    ) {
        userCode = answer.userCode
        verificationURI = answer.verificationURI
        verificationURIComplete = answer.verificationURIComplete
        let expiresOn = provider.clock.now().addingTimeInterval(TimeInterval(answer.expiresIn))
        self.expiresOn = expiresOn
        self.correlationId = correlationId
        self.provider = provider
        self.accounts = accounts
        self.metadata = metadata
        self.scopes = scopes
        self.dpopKey = dpopKey
        poller = DeviceTokenPoller(
            tokens: provider.tokens, clock: provider.clock, log: provider.log, tokenEndpoint: metadata.tokenEndpoint,
            clientId: provider.clientId, deviceCode: answer.deviceCode, expiresOn: expiresOn,
            correlationId: correlationId, interval: Locked(answer.interval),
            dpop: dpopKey.flatMap { key in provider.dpop.map { provider.signer(key, context: $0) } })
    }

    /// The seconds between two polls: the provider's `interval` (5 when it sent none), plus 5 for
    /// each `slow_down` it answered so far.
    public var interval: TimeInterval { TimeInterval(poller.interval.current) }

    /// Waits until the user approves on the other device, then signs in.
    ///
    /// Polls the token endpoint every ``interval`` seconds on the client's clock; stops at
    /// ``expiresOn`` without a further request. On approval it checks the ID token as a browser
    /// sign-in does (signature, `iss`, `aud`, `exp`/`iat`, `sub`, `at_hash`; a device code sign-in
    /// has no `nonce`) and stores the account, replacing any earlier one of this client, with the
    /// same session events.
    ///
    /// Cancel the calling task to stop waiting: the wait ends at once with
    /// ``WebSignInError/isCancelled`` and sends nothing more.
    ///
    /// - Returns: the signed-in account.
    /// - Throws: ``WebSignInError``: ``WebSignInError/isAccessDenied`` when the user declined,
    ///   ``WebSignInError/isExpired`` when the code expired first, ``WebSignInError/isCancelled``,
    ///   ``WebSignInError/isNetworkError``, ``WebSignInError/isInvalidIDToken``,
    ///   ``WebSignInError/isStateBusy``, ``WebSignInError/isStateAlreadyUsed``, … Nothing is
    ///   stored on a failure.
    public func waitForCompletion() async throws(WebSignInError) -> UserAccountResult {
        try phase.claim(correlationId: correlationId)
        var answered = false
        do {
            let answer = try await poller.poll()
            answered = true
            let account = try await signIn(with: answer)
            phase.withLock { $0 = .spent }
            return account
        } catch {
            // Once the provider has answered with tokens the device code is spent, whatever
            // happens next; before that, a wait that was cancelled, got no answer or met a server
            // failure can resume.
            let resumable = !answered && (error.isCancelled || error.isNetworkError || Self.isTransient(error))
            phase.withLock { $0 = resumable ? .ready : .spent }
            throw error.with(correlationId: correlationId)
        }
    }

    /// Whether the state was used to the end (signed in, refused, expired).
    var isSpent: Bool { phase.current == .spent }

    /// A server failure that says nothing about the device code: a 429 or 5xx status, or
    /// `server_error` / `temporarily_unavailable` (RFC 6749 §4.1.2.1). The next poll may succeed.
    private static func isTransient(_ error: WebSignInError) -> Bool {
        guard error.code == .server else { return false }
        if let status = error.httpStatusCode, status == 429 || status >= 500 { return true }
        return ["server_error", "temporarily_unavailable"].contains(error.serverError?.lowercased() ?? "")
    }

    /// Checks the ID token of the token answer and stores the account.
    private func signIn(with answer: WebTokenAnswer) async throws(WebSignInError) -> UserAccountResult {
        provider.noteServerDate(answer.serverDate)
        guard let idToken = answer.idToken else {
            throw WebSignInError.invalidIDToken(.missing, note: "The token endpoint sent no ID token.")
        }
        let claims = try await provider.validate(
            idToken, metadata: metadata,
            expecting: .init(nonce: nil, subject: nil, accessToken: answer.accessToken, now: provider.providerNow()))
        let record = await accounts.signedIn(
            TokenAnswer(answer), username: claims.preferredUsername ?? claims.string("email") ?? "", scopes: scopes,
            correlationId: correlationId, dpopKey: dpopKey?.storedForm)
        return UserAccountResult(record: record, manager: accounts)
    }

    /// Where to go and until when; never the device code, and not the user code either.
    public var description: String {
        let complete = verificationURIComplete == nil ? "no" : "yes"
        return
            "DeviceSignInState(verificationURI: \(verificationURI.absoluteString), verificationURIComplete: \(complete), expiresOn: \(expiresOn), interval: \(Int(interval)) s)"
    }
}

extension DeviceSignInState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
