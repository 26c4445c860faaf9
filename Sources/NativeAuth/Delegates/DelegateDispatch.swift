import Foundation

/// Tells a delegate's optional methods apart from the ones it implements.
///
/// Each optional method has a default implementation that calls ``missingMethod(_:)``. The SDK
/// calls a delegate method inside ``call(_:)``, on the main actor, and learns whether it fell
/// through to a default: then it reports the missing method on the step's error callback.
@MainActor
enum DelegateDispatch {
    private static var missing: String?

    /// Called by the default implementation of an optional delegate method.
    static func missingMethod(_ name: String) { missing = name }

    /// Calls `body`; returns the name of the optional method it fell through to, if any.
    @inline(never)
    static func call(_ body: () -> Void) -> String? {
        missing = nil
        body()
        defer { missing = nil }
        return missing
    }

    /// Calls a delegate's error method through `body`. A delegate that implements neither the
    /// method nor its deprecated name falls through to a default that has nowhere to send the
    /// error: it is logged at `error` level (the method, the error's kind, the correlation id).
    static func deliverError(_ error: some DetailedError, log: Log, _ body: () -> Void) {
        guard let missing = call(body) else { return }
        log(
            .error, "delegate implements neither name of its error method; the error was not delivered",
            ["method": missing, "error": "\(error.details.kind)"], correlationId: error.details.correlationId)
    }
}

/// Runs an async action and captures its one outcome.
func outcome<T, E: Error>(of body: () async throws(E) -> T) async -> Result<T, E> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

extension DetailedError {
    /// The error a delegate gets when it lacks the optional method for `outcome`.
    static func missingDelegateMethod(_ name: String, correlationId: UUID, outcome: any Sendable) -> Self {
        Self(
            details: NativeAuthErrorDetails(
                .missingDelegateMethod(name), correlationId: correlationId,
                note: "The outcome is kept in the error's unhandledOutcome.", unhandledOutcome: outcome))
    }
}

extension NativeAuthError {
    /// When ``isMissingDelegateMethod``: the outcome the delegate could not receive (a result
    /// enum such as ``SignInResult``, or a state), so nothing is lost.
    public var unhandledOutcome: (any Sendable)? { details.unhandledOutcome }
}

/// The delegate form of an action: runs the async form, then reports its one outcome on the main
/// actor. `deliver` calls the delegate's method for a result; when that method is an optional one
/// the delegate left out, `fail` gets an error naming it, with the result kept in the error.
///
/// The report's task body is compiled once, not once per result and error type: the report is a
/// ``DelegateReport`` whose body the task reaches through the class (see ``startReport(_:)``).
func reportToDelegate<T: Sendable, E: DetailedError>(
    correlationId: UUID, _ action: @escaping @Sendable () async throws(E) -> T,
    deliver: @escaping @MainActor @Sendable (T) -> Void, fail: @escaping @MainActor @Sendable (E) -> Void
) {
    startReport(TypedDelegateReport(correlationId: correlationId, action: action, deliver: deliver, fail: fail))
}

/// A delegate report waiting to run: the action, and where its outcome goes.
class DelegateReport: @unchecked Sendable {
    /// Runs the action and reports its outcome on the main actor.
    func run() async {}
}

/// Starts `report` on a new task. Not inlined, and given the base class, so that the typed
/// report's body stays one generic function rather than one copy per caller.
@inline(never)
func startReport(_ report: DelegateReport) {
    Task { await report.run() }
}

/// A report of an action with result `T` and error `E`. Its fields are constants.
private final class TypedDelegateReport<T: Sendable, E: DetailedError>: DelegateReport, @unchecked Sendable {
    let correlationId: UUID
    let action: @Sendable () async throws(E) -> T
    let deliver: @MainActor @Sendable (T) -> Void
    let fail: @MainActor @Sendable (E) -> Void

    init(
        correlationId: UUID, action: @escaping @Sendable () async throws(E) -> T,
        deliver: @escaping @MainActor @Sendable (T) -> Void, fail: @escaping @MainActor @Sendable (E) -> Void
    ) {
        self.correlationId = correlationId
        self.action = action
        self.deliver = deliver
        self.fail = fail
    }

    override func run() async {
        let result = await outcome(of: action)
        await MainActor.run {
            switch result {
            case .failure(let error):
                fail(error)
            case .success(let value):
                if let missing = DelegateDispatch.call({ deliver(value) }) {
                    fail(.missingDelegateMethod(missing, correlationId: correlationId, outcome: value))
                }
            }
        }
    }
}
