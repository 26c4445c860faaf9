import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport

// The vocabulary of the state-machine property tests: what a sequence is made of (steps, actions,
// inputs, faults) and what the reference model expects of each step (events on the wire and an
// outcome).

/// Which code the user types.
enum CodeChoice: String, Sendable {
    /// The code sent for this state.
    case correct
    /// A code that is not the one sent.
    case wrong
    /// Nothing.
    case empty
    /// The code sent for the state this one was resent from (no longer valid).
    case stale
}

/// Which password the user types. The model turns a choice into a concrete password.
enum PasswordChoice: String, Sendable {
    /// The user's current password (sign-in); a strong password (sign-up); the current one (reset:
    /// recently used).
    case correct
    /// A strong password that is not the user's.
    case wrong
    case empty
    /// The password the user had before a reset (or a wrong one when there was none).
    case previous
    /// A strong password never used before.
    case fresh
    /// Seven characters, otherwise strong.
    case tooShort
    /// Long enough, but only lowercase letters.
    case tooWeak
    /// Strong by its characters, but on the tenant's banned list.
    case banned
}

/// Which attributes the user gives at sign-up.
enum AttributesChoice: String, Sendable {
    case none
    /// `city` with a value the tenant accepts.
    case valid
    /// `city` with a value that breaks the tenant's pattern, when it has one.
    case invalid
    /// An attribute the tenant does not ask for.
    case unrelated
}

/// Which contact the user registers as a strong authentication method.
enum ContactChoice: String, Sendable {
    /// An email address the user never verified: a code is sent to it.
    case newEmail
    /// The user's own (already verified) email address.
    case ownEmail
    /// Not an email address.
    case invalid
    case empty
    /// An address the tenant blocks.
    case blocked
}

/// An action offered by a state object.
enum StateAction: Sendable, Equatable, CustomStringConvertible {
    case submitCode(CodeChoice)
    case resendCode
    case submitPassword(PasswordChoice)
    case submitAttributes(AttributesChoice)
    case requestChallenge(method: Int)
    case challengeContact(ContactChoice)
    case signInAfter

    var description: String {
        switch self {
        case .submitCode(let choice): "submitCode(\(choice))"
        case .resendCode: "resendCode"
        case .submitPassword(let choice): "submitPassword(\(choice))"
        case .submitAttributes(let choice): "submitAttributes(\(choice))"
        case .requestChallenge(let method): "requestChallenge(method #\(method))"
        case .challengeContact(let choice): "challengeAuthMethod(\(choice))"
        case .signInAfter: "signIn()"
        }
    }

    /// The catalogue's call this action makes on a state of `kind`, among the calls with a delegate
    /// form (the drivers run both forms); `nil` when the state offers none.
    func call(on kind: FlowStateKind) -> FlowStateCall? {
        let names: [FlowStateCall] =
            switch self {
            case .submitCode: [.submitChallenge, .submitCode]
            case .resendCode: [.resendCode]
            case .submitPassword: [.submitPassword]
            case .submitAttributes: [.submitAttributes]
            case .requestChallenge: [.requestChallenge]
            case .challengeContact: [.challengeAuthMethod]
            case .signInAfter: [.signIn]
            }
        return names.first { kind.delegateCalls.contains($0) }
    }

    /// Whether a state of `kind` offers this action.
    func isOffered(by kind: FlowStateKind) -> Bool { call(on: kind) != nil }
}

/// A server misbehaviour forced on one request of an action (`EmulatedTenant.force`).
enum ForcedFault: String, Sendable, CaseIterable {
    case server500, network, redirect, invalidClient, expiredToken, html, unknown400

    var answer: ForcedAnswer {
        switch self {
        case .server500: .error("server_error", status: 500)
        case .network: .networkFailure
        case .redirect: .redirect(reason: "forced by the property test")
        case .invalidClient: .error("invalid_client", suberror: "nativeauthapi_disabled", codes: [700016])
        case .expiredToken: .error("expired_token", codes: [552003])
        case .html:
            .raw(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>maintenance</html>".utf8))
        case .unknown400: .error("temporarily_unavailable", codes: [], status: 400)
        }
    }

    /// The answer forced over `version`. Over V2 the browser is asked for as V2 asks for it,
    /// `state: webFallbackRequired` (Docs/NativeAuthV2Protocol.md, "Browser required"); the other answers
    /// are the same bytes on every endpoint.
    func answer(over version: NativeAuthProtocol) -> ForcedAnswer {
        guard version == .v2, self == .redirect else { return answer }
        return .raw(
            status: 200, headers: ["Content-Type": "application/json"],
            body: Data(#"{"state":"webFallbackRequired"}"#.utf8))
    }

    /// The error the app must be told (Docs/Protocol.md, Docs/Design.md).
    var category: FlowErrorCategory { category(over: .v1) }

    /// The error the app must be told over `version`. V2 reads an error body by the table of
    /// Docs/NativeAuthV2.md ("What the SDK reads and sends"): a 5xx with a JSON error body is the
    /// server's refusal, `general` (V1: an unexpected answer), which is transient, so the model's
    /// rules for where the flow is after it are V1's; `invalid_client` is a configuration error
    /// over both.
    func category(over version: NativeAuthProtocol) -> FlowErrorCategory {
        switch self {
        case .server500: version == .v2 ? .general : .unexpectedResponse
        case .html: .unexpectedResponse
        case .network: .network
        case .redirect: .browserRequired
        case .invalidClient: .configuration
        case .expiredToken: .flowExpired
        case .unknown400: .general
        }
    }
}

/// How a step's action is run.
enum StepMode: Sendable, Equatable, CustomStringConvertible {
    case plain
    /// The action's `at`-th event (1-based; a request) gets a forced answer.
    case fault(ForcedFault, at: Int)
    /// While the action's first event is held, `second` is called on the same state.
    case concurrent(StateAction)
    /// The action's task is cancelled while its `at`-th event is held.
    case cancel(at: Int)

    var description: String {
        switch self {
        case .plain: ""
        case .fault(let fault, let index): " with \(fault) forced on event #\(index)"
        case .concurrent(let second): " while \(second) is called concurrently"
        case .cancel(let index): " cancelled at event #\(index)"
        }
    }
}

/// Which state object a state action is called on.
enum StepTarget: Sendable, Equatable, CustomStringConvertible {
    /// The state obtained last.
    case current
    /// The `n`-th state obtained in the sequence (0-based).
    case handle(Int)

    var description: String {
        switch self {
        case .current: "current state"
        case .handle(let index): "state #\(index)"
        }
    }
}

/// One thing the user (or the test) does.
enum FlowAction: Sendable, Equatable, CustomStringConvertible {
    case signIn(username: String, password: PasswordChoice?)
    case signUp(username: String, password: PasswordChoice?, attributes: AttributesChoice)
    case resetPassword(username: String)
    case state(StepTarget, StateAction)
    case advanceClock(seconds: Int)
    /// An administrator deletes the user; flows under way for them then fail.
    case removeUser(String)

    var description: String {
        switch self {
        case .signIn(let username, let password):
            "client.signIn(\"\(username)\"\(password.map { ", password: \($0)" } ?? ""))"
        case .signUp(let username, let password, let attributes):
            "client.signUp(\"\(username)\"\(password.map { ", password: \($0)" } ?? ""), attributes: \(attributes))"
        case .resetPassword(let username): "client.resetPassword(\"\(username)\")"
        case .state(let target, let action): "\(target).\(action)"
        case .advanceClock(let seconds): "clock.advance(by: \(seconds))"
        case .removeUser(let username): "tenant.removeUser(named: \"\(username)\")"
        }
    }
}

/// One step of a sequence.
struct FlowStep: Sendable, Equatable, CustomStringConvertible {
    var action: FlowAction
    var mode: StepMode = .plain

    var description: String { "\(action)\(mode)" }
}

/// What an action does on the wire: a request to an endpoint, or a wait on the clock.
enum WireEvent: Sendable, Equatable, CustomStringConvertible {
    case request(EmulatorEndpoint)
    /// A request to a URL that is no endpoint of the tenant.
    case otherRequest(String)
    case sleep(Int)

    var isRequest: Bool {
        if case .sleep = self { return false }
        return true
    }

    var description: String {
        switch self {
        case .request(let endpoint): endpoint.rawValue
        case .otherRequest(let path): "other(\(path))"
        case .sleep(let seconds): "sleep(\(seconds))"
        }
    }
}

/// What an error tells the app, read from the public `isXxx` questions only.
enum FlowErrorCategory: Sendable, Equatable, CustomStringConvertible {
    case stateBusy, stateSpent, cancelled, network, unexpectedResponse, browserRequired, configuration, flowExpired
    case userNotFound, invalidUsername, invalidCredentials, invalidCode, userAlreadyExists, attributesInvalid
    case methodBlocked, invalidInput, userHasNoPassword, passwordResetFailed, passwordResetPending,
        missingDelegateMethod
    case invalidPassword(PasswordPolicyViolation?)
    /// None of the questions answers yes.
    case general
    /// More than one question answers yes.
    case ambiguous([String])

    var description: String {
        switch self {
        case .invalidPassword(let violation?): "invalidPassword(\(violation))"
        case .invalidPassword(nil): "invalidPassword"
        case .ambiguous(let names): "ambiguous(\(names.joined(separator: ", ")))"
        case .stateBusy: "stateBusy"
        case .stateSpent: "stateAlreadyUsed"
        case .cancelled: "cancelled"
        case .network: "network"
        case .unexpectedResponse: "unexpectedResponse"
        case .browserRequired: "browserRequired"
        case .configuration: "configuration"
        case .flowExpired: "flowExpired"
        case .userNotFound: "userNotFound"
        case .invalidUsername: "invalidUsername"
        case .invalidCredentials: "invalidCredentials"
        case .invalidCode: "invalidCode"
        case .userAlreadyExists: "userAlreadyExists"
        case .attributesInvalid: "attributesInvalid"
        case .methodBlocked: "methodBlocked"
        case .invalidInput: "invalidInput"
        case .userHasNoPassword: "userHasNoPassword"
        case .passwordResetFailed: "passwordResetFailed"
        case .passwordResetPending: "passwordResetPending"
        case .missingDelegateMethod: "missingDelegateMethod"
        case .general: "general"
        }
    }

    /// Errors after which the flow is where it was, so the user may simply try again.
    var isTransient: Bool {
        switch self {
        case .network, .unexpectedResponse, .cancelled, .general: true
        default: false
        }
    }
}

/// What a step leads to.
enum ModelOutcome: Sendable, Equatable, CustomStringConvertible {
    /// A new state object of this kind.
    case state(FlowStateKind)
    /// Signed in as this user.
    case completed(String)
    /// `SignUpStartResult.attributesInvalid` naming these attributes.
    case attributesInvalid([String])
    /// An error; `usable` says whether the acted-on state stays usable (`nil` for a flow's start).
    case error(FlowErrorCategory, usable: Bool?)
    /// Nothing (a clock jump, a change to the tenant).
    case nothing

    var description: String {
        switch self {
        case .state(let kind): "state \(kind)"
        case .completed(let username): "completed(\(username))"
        case .attributesInvalid(let names): "attributesInvalid(\(names))"
        case .error(let category, let usable):
            "error \(category)" + (usable.map { $0 ? " (state usable)" : " (state spent)" } ?? "")
        case .nothing: "nothing"
        }
    }
}

/// Where the code for a submission comes from, at run time.
enum CodeSource: Sendable, Equatable {
    /// The code captured when state `n` was made.
    case of(Int)
    /// A code that differs from the one of state `n`.
    case wrongFor(Int)
    /// The code of state `previous`, which must differ from the one of state `current`.
    case stale(previous: Int, current: Int)
    case empty
}

/// A state action with its inputs made concrete by the model.
struct ResolvedAction: Sendable, Equatable {
    var action: StateAction
    var code: CodeSource?
    var password: String?
    var attributes: [String: String]?
    var contact: String?
    var methodIndex: Int?
}

/// A new state the model expects, with what the runner needs to know about it.
struct ExpectedHandle: Sendable, Equatable {
    var index: Int
    var kind: FlowStateKind
    /// Where its code was sent, for kinds that have one.
    var codeAddress: String?
    /// The channel of its code (`email`, `sms`).
    var channel: String?
    /// How many methods it offers (MFA and registration states).
    var methodCount: Int?
}

/// A step as the model plans it: the step, its inputs, and everything expected of it.
struct PlannedStep: Sendable {
    var step: FlowStep
    /// The state acted on (state actions).
    var target: Int?
    var primary: ResolvedAction?
    var second: ResolvedAction?
    /// A concrete password for a flow's start.
    var startPassword: String?
    var startAttributes: [String: String] = [:]
    var events: [WireEvent] = []
    var outcome: ModelOutcome
    var newHandle: ExpectedHandle?
    /// Sign-ins completed in the sequence up to and including this step, and the last user.
    var completions: Int
    var lastSignedIn: String?
}
