import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The inputs the fuzz suite found problems with, replayed exactly.
@Suite("Fuzz: regressions", .hangLimit)
struct FuzzRegressionTests {
    // MARK: A 4xx whose body is JSON but not an object was reported as "not JSON"

    // Found by `classify` (seeds 0xf9b13fe8c2150a5d and 0x935d852431e350ae): the 2xx path said
    // "not an object" for the same bodies.
    @Test(arguments: ["null", "[{\"continuation_token\":\"CT-SECRET-1\"}]", "42", "\"error\""])
    func errorStatusWithJSONThatIsNotAnObject(body: String) {
        // (429 is always a status problem: the retry policy reads it whatever the body.)
        for status in [400, 401, 404, 499, 200, 204] {
            let response = HTTPResponse(
                statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            let failure = #expect(throws: WireFailure.self) { _ = try WireClient.classify(response) }
            guard case .unexpected(let answer)? = failure else {
                Issue.record("status \(status): \(String(describing: failure))")
                continue
            }
            #expect(answer.problem == .notAnObject)
            #expect(answer.status == status)
            #expect(answer.summary.contains("not an object") && !answer.summary.contains("CT-SECRET"))
        }
    }

    @Test func errorStatusBodiesStillSortedAsBefore() {
        let cases: [(String, UnexpectedAnswer.Problem?)] = [
            ("", .emptyBody), ("Bad Request", .notJSON), ("{\"message\":\"x\"}", .missingField("error")),
            ("{\"error\":\"invalid_grant\"}", nil),
        ]
        for (body, problem) in cases {
            do {
                _ = try WireClient.classify(HTTPResponse(statusCode: 400, body: Data(body.utf8)))
                Issue.record("a 400 classified as success")
            } catch {
                switch error {
                case .unexpected(let answer): #expect(answer.problem == problem)
                case .server(let server): #expect(problem == nil && server.error == "invalid_grant")
                default: Issue.record("unexpected \(error)")
                }
            }
        }
    }

    // MARK: Padded variants of one key decoded differently from run to run

    // Found by `decoders` and `serverError` (seeds 0x89783e12260a4f1, 0x6426db1ff6e05ca9): with two
    // padded variants of a key and no exact key, the value taken depended on the dictionary's
    // iteration order, which Swift seeds per process; the same bytes decoded differently.

    /// The object built from `members` inserted in every order and at several capacities: a
    /// dictionary's iteration order changes with both, as it does from run to run.
    func objects(_ members: [(String, JSONValue)]) -> [WireObject] {
        var objects: [WireObject] = []
        for capacity in [0, 3, 16, 100, 1000] {
            for order in [members, members.reversed()] {
                var dictionary = [String: JSONValue](minimumCapacity: capacity)
                for (key, value) in order { dictionary[key] = value }
                objects.append(WireObject(dictionary))
            }
        }
        return objects
    }

    @Test func paddedChallengeTypeVariantsDecodeTheSameEveryTime() throws {
        let body = Data(
            "{\"continuation_token\":\"CT-SECRET-1\",\"challenge_type  \":\"oob\",\"\\u0009challenge_type\":[\"oob\"],\"binding_method\":\"prompt\",\"challenge_channel\":\"voice\",\"code_length\":8}"
                .utf8)
        let members = try #require(try JSONValue.parse(body).objectValue)
        for object in objects(members.map { ($0.key, $0.value) }) {
            // "\tchallenge_type" sorts before "challenge_type  ": its value, an array, is taken.
            #expect(object.members["challenge_type"] == .array([.string("oob")]))
            #expect(throws: WireFailure.self) { _ = try ChallengeAnswer(object) }
        }
    }

    @Test func paddedErrorVariantsDecodeTheSameEveryTime() throws {
        let body = Data(
            "{\"error\\u0009\":\"invalid_request\",\" \\u0009error\":null,\"error_description\":\"AADSTS500222: x\",\"error_codes\":[500222],\"continuation_token\":\"CT-SECRET-1\"}"
                .utf8)
        let members = try #require(try JSONValue.parse(body).objectValue)
        for object in objects(members.map { ($0.key, $0.value) }) {
            // " \terror" sorts before "error\t": its value is null, so there is no error.
            #expect(ServerError(status: 400, object: object) == nil)
        }
        var response = HTTPResponse(statusCode: 400, body: body)
        for _ in 0..<5 {
            let failure = #expect(throws: WireFailure.self) { _ = try WireClient.classify(response) }
            guard case .unexpected(let answer)? = failure else {
                Issue.record("\(String(describing: failure))")
                continue
            }
            #expect(answer.problem == .missingField("error"))
            response.headers["x-run"] = UUID().uuidString
        }
    }

    @Test func anExactKeyStillWinsOverPaddedOnes() {
        let members: [(String, JSONValue)] = [
            (" continuation_token", .string("padded-1")), ("continuation_token", .string("exact")),
            ("continuation_token\t", .string("padded-2")),
        ]
        for object in objects(members) {
            #expect(object.string("continuation_token") == "exact")
        }
    }
}
