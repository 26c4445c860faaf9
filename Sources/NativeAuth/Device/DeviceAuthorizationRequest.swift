import Foundation

/// The device authorization request (RFC 8628 §3.1): a form POST to the provider's
/// `device_authorization_endpoint` for a public client (no secret).
/// A class: it never changes once built, and its fields are shared rather than copied.
final class DeviceAuthorizationRequest: Sendable {
    let endpoint: URL
    let clientId: String
    let parameters: WebDeviceSignInParameters
    let correlationId: UUID

    init(endpoint: URL, clientId: String, parameters: WebDeviceSignInParameters, correlationId: UUID) {
        self.endpoint = endpoint
        self.clientId = clientId
        self.parameters = parameters
        self.correlationId = correlationId
    }

    /// The form, in a fixed order: `client_id`, `scope`, `audience`, each `resource`, then the
    /// extra parameters sorted by name. Field names only may be logged (``FormBody/names``).
    var form: FormBody {
        var form = FormBody()
        form.add("client_id", clientId)
        form.add("scope", parameters.scopeList.joined(separator: " "))
        form.add("audience", parameters.audience)
        for url in parameters.resource { form.add("resource", url.absoluteString) }
        for name in parameters.extraParameters.sortedKeys { form.add(name, parameters.extraParameters[name]) }
        return form
    }

    var httpRequest: HTTPRequest {
        HTTPRequest(
            method: "POST", url: endpoint, headers: WebHTTP.headers(correlationId: correlationId, form: true),
            body: form.encoded)
    }

    /// Sends the request and parses the answer.
    ///
    /// - Throws: the typed error of an error answer (``WebSignInError/isConfigurationError`` for
    ///   `invalid_client`, `unauthorized_client` or `invalid_scope`), ``WebSignInError/isNetworkError``,
    ///   ``WebSignInError/isCancelled``, or ``WebSignInError/isUnexpectedResponse`` for an answer
    ///   without a usable `device_code`, `user_code`, `verification_uri` or `expires_in`.
    func send(through pipeline: RequestPipeline) async throws(WebSignInError)
        -> DeviceAuthorizationAnswer
    {
        let log = pipeline.log
        log(
            .debug, "device authorization request", ["fields": form.names.joined(separator: ",")],
            correlationId: correlationId)
        let response = try await WebHTTP.send(
            httpRequest, to: .deviceAuthorization, through: pipeline, correlationId: correlationId)
        do {
            return try DeviceAuthorizationAnswer(response, correlationId: correlationId)
        } catch {
            log(
                .debug, "device authorization refused",
                ["status": "\(response.statusCode)", "error": error.serverError.map { String($0.prefix(80)) } ?? ""],
                correlationId: correlationId)
            throw error
        }
    }
}
