import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The sign-up parts of the V2 wire (Docs/NativeAuthV2Protocol.md, "Sign-up"): the password as an attribute
/// of `submitAttributes`, and the sign-up refusals read from `innerError.code` and `details`.
@Suite("V2 sign-up wire: submitAttributes and its refusals", .hangLimit)
struct V2SignUpWireTests {
    let builder = V2RequestBuilder(configuration: testConfiguration())
    let id = UUID(uuidString: "11111111-2222-3333-4444-555555555555") ?? UUID()

    func refusal(_ body: String) -> ServerError? {
        if case .refused(let error) = V2Fixtures.outcome(body, .interaction, status: 400) { return error }
        return nil
    }

    func error(inner: String, details: String) -> String {
        #"{"error":{"code":"invalidRequest","message":"AADSTS3000002: no","innerError":{"code":""#
            + inner + #"","details":"# + details + "}}}"
    }

    @Test func thePasswordTravelsAsAnAttributeAndIsNeverShown() throws {
        let link = try builder.resolver.resolve("/t/api/v2.0/signup/submitattributes")
        let call = V2Call.submitAttributes(
            link, continuationToken: Secret("ct-1"), attributes: ["email": .string("a@b.co")],
            password: Secret("Pa55-word!"))
        let request = builder.request(for: call, correlationId: id)
        #expect(
            String(decoding: request.body ?? Data(), as: UTF8.self)
                == #"{"attributes":{"email":"a@b.co","password":"Pa55-word!"},"continuationToken":"ct-1"}"#)
        #expect(builder.body(for: call).fieldNames == ["attributes", "continuationToken"])
        #expect(!"\(call)".contains("Pa55-word!"))
        var dumped = ""
        dump(call, to: &dumped)
        #expect(!dumped.contains("Pa55-word!"))
    }

    @Test func userAlreadyExistsAsInnerCodeOrDetail() throws {
        let inner = try #require(refusal(error(inner: "userAlreadyExists", details: "[]")))
        #expect(inner.v2Kind() == .userAlreadyExists)
        let detail = try #require(
            refusal(
                error(
                    inner: "attributeValidationError",
                    details: #"[{"code":"userAlreadyExists","attributeIds":["email"]}]"#)))
        #expect(detail.v2Kind() == .userAlreadyExists)
        #expect(detail.invalidAttributes.isEmpty)
    }

    @Test func refusedAttributesNameTheirIds() throws {
        let refused = try #require(
            refusal(
                error(
                    inner: "attributeValidationError",
                    details: #"[{"code":"x","attributeIds":["city","postalCode"]},{"attributeIds":["city"]},7]"#)))
        #expect(refused.v2Kind() == .attributesInvalid)
        #expect(refused.invalidAttributes == ["city", "postalCode"])
    }

    @Test func aRefusedPasswordIsInvalidPasswordWithItsViolation() throws {
        let weak = try #require(
            refusal(
                error(
                    inner: "attributeValidationError",
                    details: #"[{"code":"passwordTooWeak","attributeIds":["password"]}]"#)))
        #expect(weak.v2Kind() == .invalidPassword(.tooWeak))
        let unnamed = try #require(
            refusal(error(inner: "attributeValidationError", details: #"[{"attributeIds":["password"]}]"#)))
        #expect(unnamed.v2Kind() == .invalidPassword(nil))
        // A password among other refused values is a refusal of attributes.
        let mixed = try #require(
            refusal(
                error(inner: "attributeValidationError", details: #"[{"attributeIds":["password","city"]}]"#)))
        #expect(mixed.v2Kind() == .attributesInvalid)
    }
}
