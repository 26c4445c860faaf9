import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Both error shapes of Docs/NativeAuthV2Protocol.md, "Errors", and its table read as the SDK's
/// `ErrorKind`s.
@Suite("V2 errors: both shapes and the Errors table", .hangLimit)
struct V2ErrorTests {
    func refusal(_ body: String, status: Int = 400) -> ServerError? {
        if case .refused(let error) = V2Fixtures.outcome(body, .interaction, status: status) { return error }
        return nil
    }

    func hal(code: String = "invalidGrant", inner: String? = nil, message: String? = nil) -> String {
        var members = [#""code":"# + JSONValue.quoted(code)]
        if let inner { members.append(#""innerError":{"code":"# + JSONValue.quoted(inner) + "}") }
        if let message { members.append(#""message":"# + JSONValue.quoted(message)) }
        return #"{"error":{"# + members.joined(separator: ",") + "}}"
    }

    @Test func theHALShape() throws {
        let error = try #require(refusal(V2Fixtures.halError))
        #expect(error.error == "invalidGrant")
        #expect(error.suberror == "invalidOneTimeCode")
        #expect(error.errorDescription?.hasPrefix("AADSTS50184") == true)
        #expect(error.errorCodes == [50184])
        #expect(error.correlationId == "00000000-0000-0000-0000-000000000000")
        #expect(error.v2Kind() == .invalidCode)
        // [iOS] reads `correlation_id` inside the object.
        let snake = try #require(
            refusal(#"{"error":{"code":"x","correlation_id":"c-2","traceId":"t","timestamp":"ts"}}"#))
        #expect(snake.correlationId == "c-2")
        #expect(snake.traceId == "t")
        #expect(snake.timestamp == "ts")
    }

    @Test func theOAuthShape() throws {
        let error = try #require(refusal(V2Fixtures.oauthError))
        #expect(error.error == "invalid_client")
        #expect(error.errorDescription == "AADSTS700016: Application not found.")
        #expect(error.errorCodes == [700016])
        #expect(error.correlationId == "c-1")
        #expect(error.traceId == "t-1")
        #expect(error.v2Kind() == .configuration, "the client is refused: the app's configuration, as V1 reads it")
        // Without `error_codes`, the numbers come from the description.
        let described = try #require(refusal(#"{"error":"invalid_grant","error_description":"AADSTS50126: wrong"}"#))
        #expect(described.errorCodes == [50126])
        #expect(described.v2Kind() == .invalidCredentials)
    }

    // "Errors", the table, row by row, in the V2 spelling and the V1 one.
    @Test func theErrorsTable() {
        let rows: [(String, ErrorKind)] = [
            (hal(inner: "invalidOneTimeCode"), .invalidCode),
            (hal(inner: "invalid_one_time_code"), .invalidCode),
            (hal(code: "invalidGrant", message: "AADSTS50184: bad code"), .invalidCode),
            (hal(code: "invalidRequest", inner: "invalidContinuationToken"), .flowExpired),
            (hal(code: "invalid_request", inner: "invalid_continuation_token"), .flowExpired),
            (hal(code: "invalidRequest", message: "AADSTS55200: continuation_token is invalid"), .flowExpired),
            (hal(code: "invalidRequest", inner: "passwordTooWeak"), .invalidPassword(.tooWeak)),
            (hal(code: "invalidRequest", inner: "passwordTooShort"), .invalidPassword(.tooShort)),
            (hal(code: "invalidRequest", inner: "passwordTooLong"), .invalidPassword(.tooLong)),
            (hal(code: "invalidRequest", inner: "passwordIsInvalid"), .invalidPassword(.invalid)),
            (hal(code: "invalidRequest", inner: "passwordRecentlyUsed"), .invalidPassword(.recentlyUsed)),
            (hal(code: "invalidRequest", inner: "password_banned"), .invalidPassword(.banned)),
            (hal(code: "invalidGrant", inner: "invalidUserNameOrPassword"), .invalidCredentials),
            (hal(code: "invalidGrant", message: "AADSTS50126: Error validating credentials."), .invalidCredentials),
            (hal(code: "userNotFound", message: "AADSTS50034: The user account does not exist."), .userNotFound),
            (hal(code: "invalidRequest", message: "AADSTS50034: The user account does not exist."), .userNotFound),
            (hal(code: "invalidGrant", message: "no number here"), .general),
            (hal(code: "somethingNew"), .general),
        ]
        for (body, kind) in rows {
            #expect(refusal(body)?.v2Kind() == kind, "\(body)")
            #expect(V2Fixtures.outcome(body, .interaction, status: 400).errorKind == kind, "\(body)")
        }
    }

    @Test func onlyTheFirstCodeCounts() {
        #expect(refusal(hal(code: "invalidGrant", message: "AADSTS90100 then AADSTS50126"))?.v2Kind() == .general)
        #expect(
            refusal(hal(code: "invalidGrant", message: "AADSTS50126 then AADSTS50034"))?.v2Kind() == .invalidCredentials
        )
    }

    @Test func anUnrepresentableFirstListedCodeIsUnknownNotSkipped() {
        for first in ["9223372036854775807", "1e300", "null", "\"x\""] {
            let body = "{\"error\":\"invalid_grant\",\"error_codes\":[\(first),50126]}"
            let error = refusal(body)
            #expect(error?.v2Kind() == .general, "\(first)")
            #expect(error?.firstCode == nil)
            #expect(error?.errorCodes == [50126], "the SDK's error keeps the first code unknown")
        }
        #expect(
            refusal("{\"error\":\"invalid_grant\",\"error_codes\":[]," + "\"error_description\":\"AADSTS50126: x\"}")?
                .v2Kind() == .invalidCredentials)
    }

    @Test func codesFromAMessageAreBounded() {
        let long = ServerError.stsCodes(in: "AADSTS1234567890 AADSTS AADSTS-1 AADSTS42")
        #expect(long.codes == [42])
        #expect(long.first == nil, "an over-long first number is an unknown first code, not the next one")
        #expect(ServerError.stsCodes(in: "AADSTS50126: AADSTS50034").first == 50126)
        #expect(
            ServerError.stsCodes(in: String(repeating: "AADSTS1 ", count: 100)).codes.count
                == ServerError.maximumCodes)
        #expect(ServerError.stsCodes(in: "").codes == [])
        #expect(ServerError.stsCodes(in: "").first == nil)
    }

    @Test func serverTextIsCappedAndSecretsStayHidden() throws {
        let long = String(repeating: "x", count: 10_000)
        let error = try #require(
            refusal(#"{"continuationToken":"SECRET","error":{"code":""# + long + #"","message":""# + long + #""}}"#))
        #expect(error.error.count <= ServerError.maximumTextLength + 1)
        #expect((error.errorDescription?.count ?? 0) <= ServerError.maximumTextLength + 1)
        #expect(error.continuationToken == Secret("SECRET"))
        var dumped = ""
        dump(error, to: &dumped)
        #expect(!"\(error)".contains("SECRET") && !dumped.contains("SECRET"))
    }

    @Test func errorsThatAreNoErrorShape() {
        // `error` of another type, an object without a string `code`, an empty code.
        for body in [#"{"error":[3]}"#, #"{"error":{"message":"m"}}"#, #"{"error":{"code":""}}"#, #"{"error":""}"#] {
            guard case .malformed(let answer) = V2Fixtures.outcome(body, .interaction, status: 400) else {
                Issue.record("not malformed: \(body)")
                continue
            }
            #expect(answer.problem == .missingField("error"))
        }
        // A 2xx answer carrying only an error is a refusal.
        #expect(refusal(V2Fixtures.halError, status: 200)?.v2Kind() == .invalidCode)
        // The HAL shape wins when both are present.
        #expect(
            refusal(
                #"{"error":{"code":"invalidGrant","innerError":{"code":"invalidOneTimeCode"}},"error_codes":[50126]}"#)?
                .suberror == "invalidOneTimeCode")
    }
}
