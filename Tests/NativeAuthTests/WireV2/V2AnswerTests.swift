import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Each V2 answer of Docs/NativeAuthV2.md read into its typed outcome, with the rule for every
/// member that may be missing.
@Suite("V2 answers: the fixtures and every member rule", .hangLimit)
struct V2AnswerTests {
    typealias F = V2Fixtures

    func interaction(_ body: String, status: Int = 200) -> V2Envelope? {
        if case .interaction(let envelope) = F.outcome(body, .interaction, status: status) { return envelope }
        return nil
    }

    func problem(_ outcome: V2Outcome) -> UnexpectedAnswer.Problem? {
        if case .malformed(let answer) = outcome { return answer.problem }
        return nil
    }

    // "Step 1: start authorization".
    @Test func theStartAnswerInBothShapes() throws {
        for body in [F.start, F.startWithLinks] {
            guard case .started(let answer) = F.outcome(body, .startAuthorization, status: 401) else {
                Issue.record("not started: \(body)")
                continue
            }
            #expect(answer.continuationToken == Secret("ct-1"))
            #expect(answer.signIn?.hasSuffix("/api/v2.0/signin/start") == true)
            #expect(answer.signUp?.hasSuffix("/api/v2.0/signup/start") == true)
            #expect(answer.resetPassword?.hasSuffix("/api/v2.0/resetpassword/start") == true)
        }
    }

    @Test func theStartAnswerPrefersLinksAndTheSnakeCaseToken() {
        let body = """
            {"continuation_token": "snake", "continuationToken": "camel", "sign_in": "/top/api/a",
             "resetPassword": "/top/api/reset", "_links": {"signIn": {"href": "/links/api/a"}, "sign_up": "/links/api/b"}}
            """
        guard case .started(let answer) = F.outcome(body, .startAuthorization, status: 200) else {
            Issue.record("not started")
            return
        }
        #expect(answer.continuationToken == Secret("snake"))
        #expect(answer.signIn == "/links/api/a")
        #expect(answer.signUp == "/links/api/b")
        #expect(answer.resetPassword == "/top/api/reset")
    }

    @Test func aStartAnswerNeedsATokenAndAJourneyLink() {
        let noToken = #"{"error": "InsufficientAuthorization", "sign_in": "/t/api/a"}"#
        #expect(problem(F.outcome(noToken, .startAuthorization, status: 401)) == .missingField("continuation_token"))
        let noLink = #"{"error": "InsufficientAuthorization", "continuation_token": "ct"}"#
        #expect(problem(F.outcome(noLink, .startAuthorization, status: 401)) == .missingField("sign_in"))
        let wrongTypes = #"{"continuation_token": 12, "sign_in": {"href": 3}, "_links": []}"#
        #expect(problem(F.outcome(wrongTypes, .startAuthorization, status: 401)) != nil)
        // An OAuth error in place of the continuation is a refusal.
        guard case .refused(let error) = F.outcome(F.oauthError, .startAuthorization, status: 400) else {
            Issue.record("not refused")
            return
        }
        #expect(error.error == "invalid_client")
        #expect(error.errorCodes == [700016])
        #expect(F.outcome(F.start, .startAuthorization, status: 500).errorKind == .general)
        #expect(problem(F.outcome(F.start, .startAuthorization, status: 302)) == .status)
    }

    // "Interaction answers", the illustration.
    @Test func aChallengeWithItsMethods() throws {
        let envelope = try #require(interaction(F.challenge))
        #expect(envelope.state == .interactionRequired)
        #expect(envelope.action == .challenge)
        #expect(envelope.continuationToken == Secret("ct-2"))
        #expect(envelope.methods.count == 1)
        let method = try #require(envelope.methods.first)
        #expect(method.id == "m-1")
        #expect(method.type == "email")
        #expect(method.hint == "a***@c***o")
        #expect(method.links["verify"] == "/{tenant}/api/v2.0/auth/methods/email/m-1/verify")
        #expect(envelope.href("challenge") == "/{tenant}/api/v2.0/auth/methods/email/m-1/challenge")
        #expect(envelope.codeLength == nil)
        #expect(envelope.authenticationFactor == nil)
    }

    @Test func aVerifyAnswer() throws {
        let envelope = try #require(interaction(F.verify))
        #expect(envelope.action == .verify)
        #expect(envelope.methodId == "m-1")
        #expect(envelope.methodType == "email")
        #expect(envelope.hint == "a***@c***o")
        #expect(envelope.codeLength == 8)
        #expect(envelope.authenticationFactor == .multiFactor)
        #expect(envelope.links["resend"] != nil)
        #expect(envelope.links["self"] != nil)
    }

    @Test func codeLengthFromThePayloadAndItsLimits() throws {
        func length(_ members: String) -> Int?? {
            interaction(
                #"{"state":"interactionRequired","action":"verify","continuationToken":"c","_links":{"verify":{"href":"/a"}},"#
                    + members + "}")?.codeLength
        }
        #expect(length(#""payload":{"codeLength":6}"#) == .some(6))
        #expect(length(#""codeLength":"6""#) == .some(6))
        #expect(length(#""codeLength":0"#) == .some(nil))
        #expect(length(#""codeLength":-3"#) == .some(nil))
        #expect(length(#""codeLength":1e300"#) == .some(nil))
        #expect(length(#""codeLength":6.5"#) == .some(nil))
        #expect(length(#""codeLength":65,"payload":{"codeLength":6}"#) == .some(nil))
        #expect(length(#""payload":[6]"#) == .some(nil))
    }

    @Test func theAuthenticationFactor() throws {
        func factor(_ value: String) -> V2AuthenticationFactor?? {
            interaction(
                #"{"state":"interactionRequired","action":"challenge","continuationToken":"c","_links":{"challenge":{"href":"/a"}},"#
                    + #""challengeContext":"# + value + "}")?.authenticationFactor
        }
        #expect(factor(#"{"authenticationFactor":"singleFactor"}"#) == .some(.singleFactor))
        #expect(factor(#"{"authenticationFactor":"MULTIFACTOR"}"#) == .some(.multiFactor))
        #expect(factor(#"{"authenticationFactor":"thirdFactor"}"#) == .some(.unknown("thirdFactor")))
        // [Android] reads only the nested shape.
        #expect(factor(#""multiFactor""#) == .some(nil))
        // A number reads as its text, as every string member of an answer does (``WireObject``).
        #expect(factor(#"{"authenticationFactor":2}"#) == .some(.unknown("2")))
        #expect(factor(#"{"authenticationFactor":[]}"#) == .some(nil))
    }

    @Test func updatePollAndAttributes() throws {
        #expect(try #require(interaction(F.update)).action == .update)
        let poll = try #require(interaction(F.poll))
        #expect(poll.pollInterval == 1500)
        #expect(poll.href("poll")?.hasSuffix("pollUpdate") == true)
        let attributes = try #require(interaction(F.collectAttributes)).attributes
        #expect(attributes.map(\.id) == ["displayName", "city", "consent"])
        #expect(attributes.map(\.inputType) == ["text", "text", "boolean"])
        #expect(attributes.map(\.required) == [true, false, true])
        #expect(attributes[0].canChange == true)
        #expect(attributes[1].validationRegex == "^[A-Z].*$")
        #expect(attributes[2].validationRegex == "^true$")
    }

    @Test func pollIntervalIsKeptWithinLimits() throws {
        func interval(_ value: String) -> Int?? {
            interaction(
                #"{"state":"interactionRequired","action":"poll","continuationToken":"c","_links":{"poll":{"href":"/a"}},"pollInterval":"#
                    + value + "}")?.pollInterval
        }
        #expect(interval("0") == .some(100))
        #expect(interval("99999999") == .some(60_000))
        #expect(interval("\"x\"") == .some(nil))
    }

    @Test func continueAndTheCode() {
        guard case .journeyComplete(let token, let href) = F.outcome(F.journeyDone, .interaction) else {
            Issue.record("not complete")
            return
        }
        #expect(token == Secret("ct-7"))
        #expect(href == "/t/oauth2/v2.0/authorize-challenge")
        guard case .authorizationCode(let code) = F.outcome(F.code, .resumeAuthorization) else {
            Issue.record("no code")
            return
        }
        #expect(code == Secret("code-1"))
        guard case .authorizationCode(let other) = F.outcome(#"{"authorizationCode":"c2"}"#, .resumeAuthorization)
        else {
            Issue.record("no authorizationCode")
            return
        }
        #expect(other == Secret("c2"))
        #expect(problem(F.outcome(#"{"code":""}"#, .resumeAuthorization)) == .missingField("code"))
        #expect(problem(F.outcome(#"{"code":["c"]}"#, .resumeAuthorization)) == .missingField("code"))
        // A resume answer asking for more interaction is read as HAL.
        if case .interaction = F.outcome(F.verify, .resumeAuthorization) {} else { Issue.record("not HAL") }
        #expect(problem(F.outcome(#"{"state":"continue"}"#, .interaction)) == .missingField("continuationToken"))
    }

    @Test func theTokenAnswerIsTheV1One() {
        let body =
            #"{"token_type":"Bearer","access_token":"at","refresh_token":"rt","expires_in":3600,"scope":"openid api://x/.default","client_info":"e30"}"#
        guard case .tokens(let answer) = F.outcome(body, .token) else {
            Issue.record("no tokens")
            return
        }
        #expect(answer.accessToken == Secret("at"))
        #expect(answer.clientInfo == "e30")
        #expect(problem(F.outcome(#"{"token_type":"Bearer"}"#, .token)) == .missingField("access_token"))
    }

    // "`state` and `action`": every requirement of an interaction.
    @Test func anInteractionNeedsItsStateActionTokenAndLink() {
        let link = #""_links":{"verify":{"href":"/a"}}"#
        #expect(problem(F.outcome("{" + link + "}", .interaction)) == .missingField("state"))
        #expect(
            problem(F.outcome(#"{"state":"interactionRequired","continuationToken":"c","# + link + "}", .interaction))
                == .missingField("action"))
        #expect(
            problem(F.outcome(#"{"state":"interactionRequired","action":"verify","# + link + "}", .interaction))
                == .missingField("continuationToken"))
        #expect(
            problem(
                F.outcome(#"{"state":"interactionRequired","action":"verify","continuationToken":"c"}"#, .interaction))
                == .missingField("_links.verify"))
        #expect(
            problem(
                F.outcome(
                    #"{"state":"interactionRequired","action":"collectAttributes","continuationToken":"c","_links":{"submitAttributes":{"href":"/a"}},"attributes":[{"noId":1}]}"#,
                    .interaction)) == .emptyList("attributes"))
    }

    @Test func unknownStatesAndActionsAreTypedUnknowns() {
        guard case .unknownState(let state) = F.outcome(#"{"state":"somethingNew"}"#, .interaction) else {
            Issue.record("not an unknown state")
            return
        }
        #expect(state == "somethingNew")
        for action in ["dance", "somethingNew"] {
            let body = #"{"state":"interactionRequired","action":""# + action + #"","continuationToken":"c"}"#
            guard case .unsupportedAction(let value) = F.outcome(body, .interaction) else {
                Issue.record("not unsupported: \(action)")
                continue
            }
            #expect(value == action)
        }
        // Method registration's actions are known: without their link they are malformed.
        for (action, relation) in [
            ("enroll", "enroll"), ("register", "enroll"), ("activate", "activate"), ("riskverify", "riskverify"),
        ] {
            let body = #"{"state":"interactionRequired","action":""# + action + #"","continuationToken":"c"}"#
            #expect(problem(F.outcome(body, .interaction)) == .missingField("_links.\(relation)"), "\(action)")
        }
        let register =
            #"{"state":"interactionRequired","action":"register","continuationToken":"c","#
            + #""_embedded":{"methods":[{"id":"m","type":"email","_links":{"register":{"href":"/t/api/v2.0/r"}}}]}}"#
        guard case .interaction(let envelope) = F.outcome(register, .interaction) else {
            Issue.record("a register answer with a method's register link is an interaction")
            return
        }
        #expect(envelope.action == .enroll)
        // Risk verification ([iOS], [Android]): `action: riskverify` with its `riskverify` link.
        let risk =
            #"{"state":"interactionRequired","action":"riskVerify","continuationToken":"c","#
            + #""_links":{"riskverify":{"href":"/t/api/v2.0/risk/phone/verify"}}}"#
        guard case .interaction(let verify) = F.outcome(risk, .interaction) else {
            Issue.record("a riskverify answer with its link is an interaction")
            return
        }
        #expect(verify.action == .riskVerify && verify.href("riskverify") == "/t/api/v2.0/risk/phone/verify")
        #expect(F.outcome(#"{"state":"somethingNew"}"#, .interaction).errorKind == .unexpectedResponse)
    }

    // "Browser required".
    @Test func browserRequiredInEveryShape() {
        let bodies = [
            (F.webFallback, 200), (#"{"state":"WebFallbackRequired","action":"verify"}"#, 400),
            (#"{"error":"redirect_to_web","error_description":"use a browser"}"#, 400),
            (#"{"error":{"code":"redirectToWeb"}}"#, 400),
            (#"{"error":{"code":"invalidRequest","innerError":{"code":"redirect_to_web"}}}"#, 400),
        ]
        for kind in [V2AnswerKind.startAuthorization, .interaction, .resumeAuthorization, .token] {
            for (body, status) in bodies {
                guard case .browserRequired = F.outcome(body, kind, status: status) else {
                    Issue.record("not browser required: \(body) at \(kind)")
                    continue
                }
            }
        }
        #expect(F.outcome(F.webFallback, .interaction).errorKind == .browserRequired)
    }

    @Test func linksReadLenientlyButNeverAmbiguously() throws {
        let body = """
            {"state":"interactionRequired","action":"challenge","continuationToken":"c",
             "_links":{"challenge":[{"href":"/a/api/1"},{"href":"/a/api/2"}],"resend":[{"href":"/a/api/3"}],
                       "verify":"/a/api/4","poll":{"href":7},"update":{"templated":true}},
             "_embedded":{"methods":[{"id":"m1","_links":{"challenge":{"href":"/m/api/1"}}},
                                     {"id":"m2","_links":{"challenge":{"href":"/m/api/2"}}}, {"id":""}, 3]}}
            """
        let envelope = try #require(interaction(body))
        #expect(envelope.links["challenge"] == nil)
        #expect(envelope.links["resend"] == "/a/api/3")
        #expect(envelope.links["verify"] == "/a/api/4")
        #expect(envelope.links["poll"] == nil)
        #expect(envelope.links["update"] == nil)
        #expect(envelope.methods.map(\.id) == ["m1", "m2"])
        // Two methods offer `challenge`: the engine picks one, the envelope does not guess.
        #expect(envelope.href("challenge") == nil)
        #expect(envelope.offers("challenge"))
    }

    @Test func wrongShapesAndStatusesAreMalformed() {
        #expect(problem(F.outcome("", .interaction)) == .emptyBody)
        #expect(problem(F.outcome("", .interaction, status: 400)) == .status)
        #expect(problem(F.outcome("not json", .interaction)) == .notJSON)
        #expect(problem(F.outcome("[1]", .interaction)) == .notAnObject)
        #expect(problem(F.outcome(F.challenge, .interaction, status: 302)) == .status)
        #expect(problem(F.outcome(F.challenge, .interaction, status: 400)) == .missingField("error"))
        #expect(problem(F.outcome(F.challenge, .interaction, status: 503)) == .status)
        let huge = Data(count: RequestPipeline.maximumBodySize + 1)
        #expect(problem(V2Outcome(HTTPResponse(statusCode: 200, body: huge), to: .interaction)) == .tooLarge)
        let retry = V2Outcome(
            HTTPResponse(statusCode: 429, headers: ["Retry-After": "5"], body: Data("{}".utf8)), to: .interaction)
        guard case .malformed(let answer) = retry else {
            Issue.record("not malformed")
            return
        }
        #expect(answer.retryAfterHeader == "5")
        #expect(answer.status == 429)
    }
}
