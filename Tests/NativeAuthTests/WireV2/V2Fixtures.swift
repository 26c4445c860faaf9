import Foundation

@testable import NativeAuth

/// V2 answers written from Docs/NativeAuthV2.md's tables and illustrations (none is a captured
/// answer); each names the section it follows.
enum V2Fixtures {
    /// "Step 1: start authorization", the illustration.
    static let start = """
        {
          "error": "InsufficientAuthorization",
          "continuation_token": "ct-1",
          "sign_in": "/00000000-0000-0000-0000-000000000000/api/v2.0/signin/start",
          "sign_up": "/00000000-0000-0000-0000-000000000000/api/v2.0/signup/start",
          "reset_password": "/00000000-0000-0000-0000-000000000000/api/v2.0/resetpassword/start"
        }
        """

    /// "Step 1": [Android]'s reading, the links under `_links` with camelCase relations.
    static let startWithLinks = """
        {
          "error": "InsufficientAuthorization",
          "continuationToken": "ct-1",
          "_links": {
            "signIn": { "href": "/t/api/v2.0/signin/start" },
            "signUp": { "href": "/t/api/v2.0/signup/start" },
            "resetPassword": { "href": "/t/api/v2.0/resetpassword/start" }
          }
        }
        """

    /// "Interaction answers", the illustration: a challenge with one email method.
    static let challenge = """
        {
          "state": "interactionRequired",
          "action": "challenge",
          "continuationToken": "ct-2",
          "_embedded": {
            "methods": [
              {
                "id": "m-1",
                "type": "email",
                "hint": "a***@c***o",
                "_links": {
                  "challenge": { "href": "/{tenant}/api/v2.0/auth/methods/email/m-1/challenge" },
                  "verify": { "href": "/{tenant}/api/v2.0/auth/methods/email/m-1/verify" }
                }
              }
            ]
          }
        }
        """

    /// "Interaction answers" and "Methods, `codeLength`, `challengeContext`": a verify answer with
    /// the method at the top level, `codeLength`, `challengeContext` and a `resend` link.
    static let verify = """
        {
          "state": "interactionRequired",
          "action": "verify",
          "continuationToken": "ct-3",
          "id": "m-1",
          "type": "email",
          "hint": "a***@c***o",
          "codeLength": 8,
          "payload": { "codeLength": 6 },
          "challengeContext": { "authenticationFactor": "multiFactor" },
          "_links": {
            "verify": { "href": "/t/api/v2.0/auth/methods/email/m-1/verify" },
            "resend": { "href": "/t/api/v2.0/auth/methods/email/m-1/challenge" },
            "self": { "href": "/t/api/v2.0/auth/methods/email/m-1/challenge" }
          }
        }
        """

    /// "`state` and `action`": `update`, followed with PUT.
    static let update = """
        {"state": "interactionRequired", "action": "update", "continuationToken": "ct-4",
         "_links": {"update": {"href": "/t/api/v2.0/auth/methods/password/p-1"}}}
        """

    /// "`state` and `action`": `poll`, with [Android]'s `pollInterval`.
    static let poll = """
        {"state": "interactionRequired", "action": "poll", "continuationToken": "ct-5", "pollInterval": 1500,
         "_links": {"poll": {"href": "/t/api/v2.0/auth/methods/password/p-1/pollUpdate"}}}
        """

    /// "Attributes (sign-up)": [Attrs]' descriptor names and [iOS]' ones.
    static let collectAttributes = """
        {"state": "interactionRequired", "action": "collectAttributes", "continuationToken": "ct-6",
         "attributes": [
           {"attributeId": "displayName", "inputType": "text", "required": true, "hidden": false, "canChange": true},
           {"id": "city", "type": "text", "regex": "^[A-Z].*$"},
           {"attributeId": "consent", "inputType": "boolean", "required": "true", "validationRegex": "^true$"}
         ],
         "_links": {"submitAttributes": {"href": "/t/api/v2.0/signup/attributes"}}}
        """

    /// "`state` and `action`": `continue`, with its link.
    static let journeyDone = """
        {"state": "continue", "continuationToken": "ct-7",
         "_links": {"continue": {"href": "/t/oauth2/v2.0/authorize-challenge"}}}
        """

    /// "Step 3: resume authorization, the code".
    static let code = #"{"code": "code-1"}"#

    /// "Errors": the HAL illustration.
    static let halError = """
        {
          "error": {
            "code": "invalidGrant",
            "message": "AADSTS50184: The one-time code is not valid.",
            "correlationId": "00000000-0000-0000-0000-000000000000",
            "innerError": { "code": "invalidOneTimeCode" }
          }
        }
        """

    /// "Errors": the flat OAuth shape.
    static let oauthError = """
        {"error": "invalid_client", "error_description": "AADSTS700016: Application not found.",
         "error_codes": [700016], "timestamp": "2026-01-01 00:00:00Z", "trace_id": "t-1", "correlation_id": "c-1"}
        """

    /// "Browser required".
    static let webFallback = #"{"state": "webFallbackRequired"}"#

    static var all: [(String, V2AnswerKind, Int)] {
        [
            (start, .startAuthorization, 401), (startWithLinks, .startAuthorization, 401),
            (challenge, .interaction, 200), (verify, .interaction, 200), (update, .interaction, 200),
            (poll, .interaction, 200), (collectAttributes, .interaction, 200), (journeyDone, .interaction, 200),
            (code, .resumeAuthorization, 200), (halError, .interaction, 400), (oauthError, .token, 400),
            (webFallback, .interaction, 200),
        ]
    }

    static func outcome(_ body: String, _ kind: V2AnswerKind, status: Int = 200) -> V2Outcome {
        V2Outcome(
            HTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8)),
            to: kind)
    }
}

extension V2Outcome {
    /// What the outcome means as an SDK error, as the wire edge throws it; `nil` when it is not one.
    var errorKind: ErrorKind? {
        switch self {
        case .started, .interaction, .journeyComplete, .authorizationCode, .tokens: nil
        case .browserRequired: .browserRequired
        case .unsupportedAction, .unknownState, .malformed: .unexpectedResponse
        case .refused(let error): error.v2Kind()
        }
    }
}
