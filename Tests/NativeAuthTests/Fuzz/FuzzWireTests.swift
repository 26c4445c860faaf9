import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Fuzzing of the wire layer: sorting responses, the success decoders, and error bodies.
@Suite("Fuzz: wire layer", .serialized, .hangLimit, .cpuHeavy)
struct FuzzWireTests {
    // MARK: (b) WireClient.classify

    @Test func classify() async {
        let summary = await FuzzRunner(target: .classify).run { seed in Self.classifyCase(seed) }
        guard FuzzSettings.replaySeed == nil else { return }
        // Every status code from 100 to 599, each with five kinds of body.
        var swept = 0
        for status in 100...599 {
            for (index, body) in Self.sweepBodies.enumerated() {
                let response = HTTPResponse(
                    statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
                let problems = Self.check(response)
                swept += 1
                if !problems.isEmpty {
                    Issue.record(
                        "fuzz classify sweep: status \(status), body #\(index): \(problems.joined(separator: "; "))")
                }
            }
        }
        print(
            "fuzz classify sweep: \(swept) cases (statuses 100…599 × \(Self.sweepBodies.count) bodies); \(summary.cases + swept) classify cases in all"
        )
    }

    static let sweepBodies = [
        "", "{\"continuation_token\":\"CT-SECRET-1\"}",
        "{\"error\":\"invalid_grant\",\"continuation_token\":\"CT-SECRET-2\"}",
        "{\"challenge_type\":\"redirect\",\"redirect_reason\":\"r\"}", "<html>",
    ]

    static func classifyCase(_ seed: UInt64) -> FuzzCase {
        var gen = Gen(seed: seed)
        let endpoint = gen.rng.pick(Endpoint.allCases)
        guard case .response(var response) = gen.answer(endpoint, profile: .classify) else {
            return FuzzCase(size: 0) { ["the classify profile produced a transport failure"] }
        }
        if gen.rng.chance(0.3) { response.statusCode = gen.rng.int(100...599) }
        let fixed = response
        return FuzzCase(size: fixed.body.count) { Self.check(fixed) }
    }

    static func check(_ response: HTTPResponse) -> [String] {
        var problems = Problems()
        let expectation = FuzzExpectation(response)
        let members = (try? JSONValue.parse(response.body))?.objectValue ?? [:]
        let ambiguous = ["challenge_type", "redirect_reason", "error"].contains { Lenient.isAmbiguous(members, $0) }
        let allowed = Markers.echoable(in: response.body)
        func noSecrets(_ text: String, _ what: String) {
            let leaked = Markers.find(in: text).subtracting(allowed)
            problems.check(leaked.isEmpty, "\(what) shows \(leaked.sorted())")
        }
        let status = response.statusCode
        do {
            let object = try WireClient.classify(response)
            problems.check(
                ambiguous || expectation == .success, "status \(status) classified as success, expected \(expectation)")
            problems.check((200...299).contains(status), "a success with status \(status)")
            problems.check(object == WireObject(members), "the success object differs from the body")
        } catch {
            let metadata = WireClient.metadata(for: error, endpoint: "e")
            noSecrets(metadata.description, "log metadata")
            switch error {
            case .redirect(let reason):
                problems.check(
                    ambiguous || expectation == .redirect(reason: reason),
                    "redirect(\(String(describing: reason))), expected \(expectation)")
                problems.check((200...299).contains(status), "a redirect with status \(status)")
            case .server(let serverError):
                problems.check(
                    ambiguous || expectation == .server(error: serverError.error),
                    "server error, expected \(expectation)")
                problems.check(serverError.status == status, "server error status \(serverError.status) for \(status)")
                problems.check((400...499).contains(status), "a server error with status \(status)")
            case .unexpected(let answer):
                problems.check(
                    ambiguous || expectation == .unexpected(status: status, problem: answer.problem),
                    "unexpected(\(answer.problem)), expected \(expectation)")
                problems.check(answer.status == status, "unexpected answer status \(String(describing: answer.status))")
                problems.check(answer.contentType == response.header("Content-Type"), "content type not kept")
                problems.check(answer.bodyLength == response.body.count, "body length not kept")
                problems.check(answer.summary.contains("status \(status)"), "summary without the status")
                noSecrets(answer.summary, "the summary")
            case .cancelled, .transport:
                problems.add("classify produced \(error)")
            }
        }
        return withBody(problems.list, response.body)
    }

    /// Problems, with the start of the body that caused them.
    static func withBody(_ problems: [String], _ body: Data) -> [String] {
        guard !problems.isEmpty else { return [] }
        return problems + [
            "body (\(body.count) bytes): " + String(decoding: body.prefix(400), as: UTF8.self).debugDescription
        ]
    }

    // MARK: (c) the success decoders

    @Test func decoders() async {
        await FuzzRunner(target: .decoders).run { seed in Self.decoderCase(seed) }
    }

    static func decoderCase(_ seed: UInt64) -> FuzzCase {
        var gen = Gen(seed: seed)
        gen.wrongTypeRate = gen.rng.pick([0.0, 0.06, 0.3, 0.6])
        let endpoint = gen.rng.pick(Endpoint.allCases)
        var body: Data
        switch gen.rng.int(0..<10) {
        case 0...6: body = Data(gen.successBody(endpoint).render(using: &gen.rng).utf8)
        case 7: body = Data(gen.errorBody(endpoint).render(using: &gen.rng).utf8)
        case 8: body = Data(gen.value(depth: 4).render(using: &gen.rng).utf8)
        default: body = Data(gen.mutate(Array(gen.successBody(endpoint).render(using: &gen.rng).utf8)))
        }
        let headers = gen.headers(json: true)
        let status = gen.rng.chance(0.9) ? 200 : gen.rng.int(201...299)
        let response = HTTPResponse(statusCode: status, headers: headers, body: body)
        return FuzzCase(size: body.count) { Self.checkDecoders(response) }
    }

    static func checkDecoders(_ response: HTTPResponse) -> [String] {
        var problems = Problems()
        guard let members = (try? JSONValue.parse(response.body))?.objectValue else { return [] }
        let object = WireObject(members)
        let allowed = Markers.echoable(in: response.body)
        let watched = [
            "continuation_token", "challenge_type", "expires_in", "code_length", "methods", "access_token", "status",
            "poll_interval",
        ]
        let ambiguous = watched.contains { Lenient.isAmbiguous(members, $0) }
        let token = Lenient.string(members, "continuation_token").flatMap { $0.isEmpty ? nil : $0 }
        func failed(_ failure: WireFailure, _ decoder: String) -> UnexpectedAnswer.Problem? {
            guard case .unexpected(let answer) = failure else {
                problems.add("\(decoder) threw \(failure), not an unexpected answer")
                return nil
            }
            let leaked = Markers.find(in: answer.summary).subtracting(allowed)
            problems.check(leaked.isEmpty, "\(decoder)'s failure shows \(leaked.sorted())")
            return answer.problem
        }

        // ContinuationAnswer
        do {
            let answer = try ContinuationAnswer(object)
            problems.check(ambiguous || answer.continuationToken.reveal == token, "ContinuationAnswer: wrong token")
            problems.check(
                ambiguous || answer.expiresIn == Lenient.value(members, "expires_in")?.intValue,
                "ContinuationAnswer: wrong expires_in")
        } catch {
            let problem = failed(error, "ContinuationAnswer")
            problems.check(
                ambiguous || (token == nil && problem == .missingField("continuation_token")),
                "ContinuationAnswer refused \(String(describing: problem))")
        }

        // ChallengeAnswer
        let type = Lenient.string(members, "challenge_type")?.lowercased()
        do {
            let answer = try ChallengeAnswer(object)
            switch answer {
            case .code(let challenge):
                problems.check(ambiguous || type == "oob", "ChallengeAnswer: code for \(String(describing: type))")
                if let length = challenge.codeLength {
                    problems.check((1...64).contains(length), "code length \(length) kept")
                }
                problems.check(!challenge.continuationToken.isEmpty, "ChallengeAnswer: empty token")
            case .credential(let credential, let secret):
                problems.check(
                    ambiguous || (type == credential.rawValue && credential != .oob),
                    "ChallengeAnswer: \(credential) for \(String(describing: type))")
                problems.check(!secret.isEmpty, "ChallengeAnswer: empty token")
            case .preverified(let secret):
                problems.check(
                    ambiguous || type == "preverified", "ChallengeAnswer: preverified for \(String(describing: type))")
                problems.check(!secret.isEmpty, "ChallengeAnswer: empty token")
            }
        } catch {
            let problem = failed(error, "ChallengeAnswer")
            let expected: UnexpectedAnswer.Problem =
                token == nil
                ? .missingField("continuation_token")
                : .unknownValue(field: "challenge_type", value: type ?? "<missing>")
            problems.check(
                ambiguous || problem == expected,
                "ChallengeAnswer refused with \(String(describing: problem)), expected \(expected)")
        }

        // IntrospectAnswer
        let validMethods = (Lenient.value(members, "methods")?.arrayValue ?? []).filter {
            guard let method = $0.objectValue else { return false }
            return !(Lenient.string(method, "id") ?? "").isEmpty
        }
        do {
            let answer = try IntrospectAnswer(object)
            problems.check(!answer.methods.isEmpty, "IntrospectAnswer without methods")
            problems.check(answer.methods.allSatisfy { !$0.id.isEmpty }, "IntrospectAnswer: a method without id")
            problems.check(
                ambiguous || answer.methods.count == validMethods.count,
                "IntrospectAnswer: \(answer.methods.count) methods, expected \(validMethods.count)")
        } catch {
            let problem = failed(error, "IntrospectAnswer")
            problems.check(
                ambiguous || token == nil || validMethods.isEmpty,
                "IntrospectAnswer refused \(String(describing: problem))")
        }

        // TokenAnswer
        let access = Lenient.string(members, "access_token").flatMap { $0.isEmpty ? nil : $0 }
        do {
            let answer = try TokenAnswer(object, headers: response)
            problems.check(ambiguous || answer.accessToken.reveal == access, "TokenAnswer: wrong access token")
            if let expiresIn = answer.expiresIn { problems.check(expiresIn >= 0, "TokenAnswer: negative expires_in") }
            if let date = answer.serverDate {
                problems.check(date.timeIntervalSince1970.isFinite, "TokenAnswer: date not finite")
            }
            problems.check(answer.scopes.allSatisfy { !$0.isEmpty }, "TokenAnswer: an empty scope")
        } catch {
            let problem = failed(error, "TokenAnswer")
            problems.check(ambiguous || access == nil, "TokenAnswer refused \(String(describing: problem))")
        }

        // ResetSubmitAnswer
        do {
            let answer = try ResetSubmitAnswer(object)
            problems.check((1...60).contains(answer.pollInterval), "poll interval \(answer.pollInterval)")
        } catch {
            let problem = failed(error, "ResetSubmitAnswer")
            problems.check(ambiguous || token == nil, "ResetSubmitAnswer refused \(String(describing: problem))")
        }

        // PollAnswer
        let status = Lenient.string(members, "status")?.lowercased()
        do {
            let answer = try PollAnswer(object)
            let expected: [PollAnswer.Status: String] = [
                .notStarted: "not_started", .inProgress: "in_progress", .succeeded: "succeeded", .failed: "failed",
            ]
            problems.check(
                ambiguous || expected[answer.status] == status,
                "PollAnswer: \(answer.status) for \(String(describing: status))")
            // `succeeded` without a token is a success (sign-in after the reset is then unavailable).
        } catch {
            let problem = failed(error, "PollAnswer")
            let known = ["not_started", "in_progress", "succeeded", "failed"].contains(status ?? "")
            problems.check(
                ambiguous || !known || (status == "succeeded" && token == nil),
                "PollAnswer refused \(String(describing: problem))")
        }

        // Required attributes, from any value.
        for value in members.values {
            for element in value.arrayValue ?? [value] {
                if let attribute = WireRequiredAttribute(element) {
                    problems.check(!attribute.name.isEmpty, "a required attribute without name")
                }
            }
        }

        // Reply.decode reports a failure with the response's status, content type and length.
        let reply = WireClient.Reply(object: object, response: response)
        do {
            _ = try reply.decode { _ throws(WireFailure) -> Int in
                throw .unexpected(UnexpectedAnswer(problem: .missingField("x")))
            }
            problems.add("Reply.decode swallowed a failure")
        } catch {
            if case .unexpected(let answer) = error {
                problems.check(answer.status == response.statusCode, "Reply.decode: status not kept")
                problems.check(
                    answer.contentType == response.header("Content-Type"), "Reply.decode: content type not kept")
                problems.check(answer.bodyLength == response.body.count, "Reply.decode: length not kept")
            } else {
                problems.add("Reply.decode changed the failure")
            }
        }
        return withBody(problems.list, response.body)
    }

    // MARK: (d) ServerError.init

    @Test func serverError() async {
        await FuzzRunner(target: .serverError).run { seed in Self.serverErrorCase(seed) }
    }

    static func serverErrorCase(_ seed: UInt64) -> FuzzCase {
        var gen = Gen(seed: seed)
        gen.wrongTypeRate = gen.rng.pick([0.0, 0.06, 0.3, 0.6])
        let endpoint = gen.rng.pick(Endpoint.allCases)
        let body: Data
        switch gen.rng.int(0..<10) {
        case 0...6: body = Data(gen.errorBody(endpoint).render(using: &gen.rng).utf8)
        case 7: body = Data(gen.successBody(endpoint).render(using: &gen.rng).utf8)
        case 8: body = Data(gen.value(depth: 4).render(using: &gen.rng).utf8)
        default: body = Data(gen.mutate(Array(gen.errorBody(endpoint).render(using: &gen.rng).utf8)))
        }
        let status = gen.rng.chance(0.8) ? 400 : gen.rng.int(400...499)
        return FuzzCase(size: body.count) { Self.checkServerError(body, status: status) }
    }

    static func checkServerError(_ body: Data, status: Int) -> [String] {
        var problems = Problems()
        guard let members = (try? JSONValue.parse(body))?.objectValue else { return [] }
        let ambiguous = ["error", "suberror", "continuation_token"].contains { Lenient.isAmbiguous(members, $0) }
        let expected = Lenient.string(members, "error").flatMap { $0.isEmpty ? nil : $0 }
        guard let error = ServerError(status: status, object: WireObject(members)) else {
            problems.check(ambiguous || expected == nil, "ServerError refused a body with error '\(expected ?? "")'")
            return withBody(problems.list, body)
        }
        problems.check(ambiguous || error.error == expected, "ServerError: wrong error")
        problems.check(error.status == status, "ServerError: wrong status")
        problems.check(error.suberror.map { !$0.isEmpty } ?? true, "ServerError: empty suberror kept")
        problems.check(error.continuationToken.map { !$0.isEmpty } ?? true, "ServerError: empty token kept")
        problems.check(
            error.requiredAttributes.allSatisfy { !$0.name.isEmpty }, "ServerError: unnamed required attribute")
        let policy = error.suberror?.lowercased().hasPrefix("password_") ?? false
        problems.check((error.passwordPolicyViolation != nil) == policy, "ServerError: password policy mismatch")
        _ = (
            error.isConfigurationError, error.isInvalidContinuationToken, error.invalidAttributes,
            error.unverifiedAttributes
        )

        // Every step's error built from it: the kind is sound and no rendering shows a secret.
        let allowed = Markers.echoable(in: body)
        let id = UUID()
        let failure = WireFailure.server(error)
        let errors: [any NativeAuthError] = [
            SignInStartError(failure, correlationId: id, from: .signInInitiate),
            VerifyCodeError(failure, correlationId: id, from: .token),
            ResendCodeError(failure, correlationId: id, from: .signInChallenge),
            PasswordRequiredError(failure, correlationId: id, from: .token),
            MFARequestChallengeError(failure, correlationId: id, from: .signInChallenge),
            MFASubmitChallengeError(failure, correlationId: id, from: .token),
            RegisterStrongAuthChallengeError(failure, correlationId: id, from: .registerChallenge),
            RegisterStrongAuthSubmitChallengeError(failure, correlationId: id, from: .registerContinue),
            SignUpStartError(failure, correlationId: id, from: .signUpStart),
            AttributesRequiredError(failure, correlationId: id, from: .signUpContinue),
            VerifyCodeError(failure, correlationId: id, from: .resetPasswordContinue),
            VerifyCodeError(failure, correlationId: id, from: .signUpContinue),
            PasswordRequiredError(failure, correlationId: id, from: .signUpContinue),
            SignInAfterSignUpError(failure, correlationId: id, from: .token),
            ResetPasswordStartError(failure, correlationId: id, from: .resetPasswordStart),
            SignInAfterResetPasswordError(failure, correlationId: id, from: .token),
            RetrieveAccessTokenError(
                failure, correlationId: id,
                serverKind: { () -> ErrorKind? in
                    guard case .server(let server) = failure else { return nil }
                    let expired = server.isError("invalid_grant") || server.isError("expired_token")
                    return expired ? .refreshTokenExpired : nil
                }()),
        ]
        for built in errors {
            let name = String(describing: type(of: built))
            problems.check(built.details.server == error, "\(name): the server error is not kept")
            problems.check(built.isConfigurationError == error.isConfigurationError, "\(name): configuration mismatch")
            problems.check(
                !built.isNetworkError && !built.isUnexpectedResponse && !built.isBrowserRequired,
                "\(name): wrong kind \(built.details.kind)")
            problems.check(built.details.httpStatusCode == status, "\(name): status not kept")
            for text in [
                built.description, built.debugDescription, built.errorDescription ?? "", String(reflecting: built),
            ] {
                let leaked = Markers.find(in: text).subtracting(allowed)
                problems.check(leaked.isEmpty, "\(name) shows \(leaked.sorted())")
            }
        }
        return withBody(problems.list, body)
    }
}
