import AuthSupport
import Foundation

/// Polls the token endpoint with a device code (RFC 8628 §3.4–3.5) until the user approves, the
/// provider refuses, or the code expires.
///
/// It waits `interval` seconds on the injected clock before each request. `authorization_pending`
/// goes on polling; `slow_down` adds 5 seconds to the interval for this and every later request
/// (kept in ``interval``, so a later wait on the same state keeps it too); a request that gets no
/// answer is tried again after twice the wait, at most ``networkRetries`` times in a row (§3.5
/// asks clients to back off after a timeout). When the next request would fall at or after the
/// code's expiry, it waits until the expiry and stops with ``WebSignInError/isExpired``, sending
/// nothing more. Cancelling the task stops it at once, with no further request.
///
/// A class: it never changes once built, and its many fields are shared rather than copied.
final class DeviceTokenPoller: Sendable {
    let tokens: WebTokenClient
    let clock: any NativeAuthClock
    let log: Log
    let tokenEndpoint: URL
    let clientId: String
    let deviceCode: Secret
    let expiresOn: Date
    let correlationId: UUID
    /// The current polling interval in seconds, shared with the state that owns the device code.
    let interval: Locked<Int>
    /// The proof each poll carries, when the client uses DPoP (RFC 9449 §5: every token request).
    let dpop: DPoPSigner?

    init(
        tokens: WebTokenClient, clock: any NativeAuthClock, log: Log, tokenEndpoint: URL, clientId: String,
        deviceCode: Secret, expiresOn: Date, correlationId: UUID, interval: Locked<Int>, dpop: DPoPSigner? = nil
    ) {
        self.tokens = tokens
        self.clock = clock
        self.log = log
        self.tokenEndpoint = tokenEndpoint
        self.clientId = clientId
        self.deviceCode = deviceCode
        self.expiresOn = expiresOn
        self.correlationId = correlationId
        self.interval = interval
        self.dpop = dpop
    }

    /// Requests without an answer tried again in a row before the error is thrown.
    static let networkRetries = 3
    /// RFC 8628 §3.5: `slow_down` adds 5 seconds to the interval.
    static let slowDownStep = 5

    /// Polls until the provider answers with tokens.
    ///
    /// - Throws: ``WebSignInError``: ``WebSignInError/isExpired`` (the provider's `expired_token`,
    ///   or the expiry reached), ``WebSignInError/isAccessDenied``, ``WebSignInError/isCancelled``,
    ///   ``WebSignInError/isNetworkError`` after the retries, or any other refusal of the token
    ///   endpoint.
    func poll() async throws(WebSignInError) -> WebTokenAnswer {
        var failures = 0
        while true {
            let wait = TimeInterval(interval.current) * Double(1 << failures)
            let remaining = expiresOn.timeIntervalSince(clock.now())
            if remaining <= wait {
                if remaining > 0 { try await sleep(remaining) }
                log(.info, "device code expired", correlationId: correlationId)
                throw WebSignInError(
                    .expired, note: "No request was sent after the code's expiry.", correlationId: correlationId)
            }
            try await sleep(wait)
            do {
                return try await tokens.send(request, dpop: dpop)
            } catch {
                switch error.serverError?.lowercased() {
                case "authorization_pending":
                    failures = 0
                    log(.debug, "device sign-in pending", correlationId: correlationId)
                case "slow_down":
                    failures = 0
                    let slower = interval.withLock { value in
                        value += Self.slowDownStep
                        return value
                    }
                    log(.debug, "device sign-in slowed down", ["interval": "\(slower)"], correlationId: correlationId)
                default:
                    guard error.isNetworkError, failures < Self.networkRetries else { throw error }
                    failures += 1
                    log(
                        .debug, "device sign-in poll got no answer", ["retry": "\(failures)"],
                        correlationId: correlationId)
                }
            }
        }
    }

    private var request: WebTokenRequest {
        WebTokenRequest(
            tokenEndpoint: tokenEndpoint, clientId: clientId, grant: .deviceCode(deviceCode),
            correlationId: correlationId)
    }

    /// Sleeps on the clock; a cancelled task (or a clock that fails) ends the wait as cancelled.
    private func sleep(_ seconds: TimeInterval) async throws(WebSignInError) {
        do {
            try await clock.sleep(seconds: seconds)
        } catch {
            throw .cancelled(correlationId: correlationId)
        }
        if Task.isCancelled { throw .cancelled(correlationId: correlationId) }
    }
}
