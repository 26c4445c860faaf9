import Foundation
import NativeAuth
import NativeAuthTestSupport

extension FlowOutcome {
    /// The outcome in one line, for a failing sequence's report.
    var summary: String {
        switch self {
        case .state(let state): "state \(state.kind)"
        case .completed(let account): "completed(\(account.account.username))"
        case .attributesInvalid(let names): "attributesInvalid(\(names))"
        case .error(let error, let given):
            "error \(FlowErrorCategory(error)) (isStateStillUsable: \(error.isStateStillUsable)"
                + (given.map { ", newState given: \($0)" } ?? "") + ") \(error)"
        case .unknown(let text): "unknown outcome \(text)"
        }
    }
}

extension FlowErrorCategory {
    /// Reads an error through the public questions only.
    init(_ error: any NativeAuthError) {
        var yes: [(String, FlowErrorCategory)] = []
        func ask(_ answer: Bool, _ category: FlowErrorCategory) {
            if answer { yes.append((category.description, category)) }
        }
        ask(error.isStateBusy, .stateBusy)
        ask(error.isStateAlreadyUsed, .stateSpent)
        ask(error.isCancelled, .cancelled)
        ask(error.isNetworkError, .network)
        ask(error.isUnexpectedResponse, .unexpectedResponse)
        ask(error.isBrowserRequired, .browserRequired)
        ask(error.isConfigurationError, .configuration)
        ask(error.isFlowExpired, .flowExpired)
        ask(error.isMissingDelegateMethod, .missingDelegateMethod)
        ask(error.isUserNotFound, .userNotFound)
        switch error {
        case let error as SignInStartError:
            ask(error.isInvalidUsername, .invalidUsername)
            ask(error.isInvalidCredentials, .invalidCredentials)
        case let error as VerifyCodeError:
            ask(error.isInvalidCode, .invalidCode)
            ask(error.isUserAlreadyExists, .userAlreadyExists)
        case let error as PasswordRequiredError:
            ask(error.isInvalidPassword, .invalidPassword(error.passwordPolicyViolation))
            ask(error.isPasswordResetFailed, .passwordResetFailed)
            // An interrupted wait (cancelled, no answer, an unusable answer, a server error the
            // SDK does not know) also says the reset goes on; the interruption is the category.
            ask(
                error.isPasswordResetPending && !error.isCancelled && !error.isNetworkError
                    && !error.isUnexpectedResponse && error.serverError == nil, .passwordResetPending)
            ask(error.isUserAlreadyExists, .userAlreadyExists)
        case let error as SignUpStartError:
            ask(error.isUserAlreadyExists, .userAlreadyExists)
            ask(error.isInvalidUsername, .invalidUsername)
            ask(error.isInvalidPassword, .invalidPassword(error.passwordPolicyViolation))
            ask(error.isInvalidAttributes, .attributesInvalid)
        case let error as AttributesRequiredError:
            ask(error.isInvalidAttributes, .attributesInvalid)
            ask(error.isUserAlreadyExists, .userAlreadyExists)
        case let error as MFARequestChallengeError:
            ask(error.isMethodBlocked, .methodBlocked)
        case let error as MFASubmitChallengeError:
            ask(error.isInvalidChallenge, .invalidCode)
        case let error as RegisterStrongAuthChallengeError:
            ask(error.isInvalidInput, .invalidInput)
            ask(error.isMethodBlocked, .methodBlocked)
        case let error as RegisterStrongAuthSubmitChallengeError:
            ask(error.isInvalidChallenge, .invalidCode)
        case let error as ResetPasswordStartError:
            ask(error.isUserDoesNotHavePassword, .userHasNoPassword)
            ask(error.isInvalidUsername, .invalidUsername)
        default:
            break
        }
        switch yes.count {
        case 0: self = .general
        case 1: self = yes[0].1
        default: self = .ambiguous(yes.map(\.0))
        }
    }
}

/// One call into the SDK, with every input made concrete, ready to run on any task.
struct SDKInvocation: Sendable {
    enum Call: Sendable {
        case signIn(SignInParameters)
        case signUp(SignUpParameters)
        case resetPassword(ResetPasswordParameters)
        case state(FlowState, Input)
    }

    struct Input: Sendable {
        var action: StateAction
        var code = ""
        var password = ""
        var attributes = UserAttributes()
        var contact = ""
        var methodIndex = 0
    }

    let client: NativeAuthClient
    let call: Call
}

/// Runs invocations through the `async throws` API.
enum PropertyAsyncDriver {
    static func run(_ invocation: SDKInvocation) async -> FlowOutcome {
        switch invocation.call {
        case .signIn(let parameters):
            do {
                return FlowOutcome.of(try await invocation.client.signIn(parameters)).0
            } catch {
                return .error(error, newStateGiven: nil)
            }
        case .signUp(let parameters):
            do {
                return FlowOutcome.of(try await invocation.client.signUp(parameters)).0
            } catch {
                return .error(error, newStateGiven: nil)
            }
        case .resetPassword(let parameters):
            do {
                return FlowOutcome.of(try await invocation.client.resetPassword(parameters)).0
            } catch {
                return .error(error, newStateGiven: nil)
            }
        case .state(let state, let input):
            guard let call = input.action.call(on: state.kind),
                let result = await state.perform(call, input.flowInput(for: state))
            else { return .unknown("\(input.action) is not offered by \(state.kind)") }
            return result.outcome
        }
    }

    static func method(_ methods: [AuthMethod], _ index: Int) -> AuthMethod {
        methods.indices.contains(index)
            ? methods[index] : AuthMethod(id: "missing", channelTargetType: .email, loginHint: "missing")
    }
}

extension SDKInvocation.Input {
    /// The catalogue's input for a call on `state`: the method chosen by index among its methods.
    func flowInput(for state: FlowState) -> FlowActionInput {
        FlowActionInput(
            code: code, password: password, attributes: attributes,
            authMethod: PropertyAsyncDriver.method(state.methods ?? [], methodIndex), contact: contact)
    }
}
