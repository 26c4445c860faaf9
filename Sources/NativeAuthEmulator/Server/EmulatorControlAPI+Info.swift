import Foundation
import LoopbackHTTP
import NativeAuth

/// `GET /info`: what a client needs to reach the tenant, and the tenant's settings.
extension EmulatorControlAPI {
    var info: JSONObject {
        let origin = baseURL.absoluteString
        let authority = origin + tenant.authority.path
        return [
            "authority": .string(authority),
            "clientId": .string(tenant.clientId),
            "tenantId": .string(tenant.tenantId),
            "tenantSubdomain": .string(tenant.tenantSubdomain),
            "issuer": .string(tenant.issuerIdentifier),
            "openIDConfiguration": .string(authority + "/" + EmulatorEndpoint.openIDConfiguration.rawValue),
            "resource": .string(authority + "/" + EmulatorEndpoint.resource.rawValue),
            "control": .string(origin + EmulatorServer.controlPath),
            "manualClock": .bool(tenant.clock is ManualClock),
            "settings": .object(Self.settingsObject(tenant.settings)),
        ]
    }

    /// `PATCH /settings`: the settings its JSON object names change, all or none (a `400` names
    /// the one refused); the answer is every setting, as `GET /settings` gives them.
    func changeSettings(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        let changes = try ControlFields(request: request).object
        var refusal: EmulatorSettingsError?
        tenant.configure { settings in
            do throws(EmulatorSettingsError) {
                try settings.apply(changes)
            } catch {
                refusal = error
            }
        }
        if let refusal { throw .badRequest(refusal.message) }
        return Self.json(200, Self.settingsObject(tenant.settings))
    }

    /// Every ``EmulatorSettings`` property under its Swift name; times in seconds, sets sorted.
    static func settingsObject(_ settings: EmulatorSettings) -> JSONObject {
        let attributes = settings.requiredSignUpAttributes.map { attribute -> JSON in
            .object([
                "name": .string(attribute.name), "type": .string(attribute.type), "required": .bool(attribute.required),
                "regex": attribute.regex.map(JSON.string) ?? .null,
            ])
        }
        return [
            "codeLength": .integer(settings.codeLength),
            "continuationTokenLifetime": .double(settings.continuationTokenLifetime),
            "accessTokenLifetime": .double(settings.accessTokenLifetime),
            "refreshTokenLifetime": .double(settings.refreshTokenLifetime),
            "rotateRefreshTokens": .bool(settings.rotateRefreshTokens),
            "revokeRotatedRefreshTokens": .bool(settings.revokeRotatedRefreshTokens),
            "requiredSignUpAttributes": .array(attributes),
            "passwordMinLength": .integer(settings.passwordMinLength),
            "passwordMaxLength": .integer(settings.passwordMaxLength),
            "bannedPasswords": .array(settings.bannedPasswords.sorted().map(JSON.string)),
            "resetPollsBeforeCompletion": .integer(settings.resetPollsBeforeCompletion),
            "resetPollInterval": .integer(settings.resetPollInterval),
            "resetJobOutcome": .string(settings.resetJobOutcome.rawValue),
            "mfaRequiredForAll": .bool(settings.mfaRequiredForAll),
            "signUpEnabled": .bool(settings.signUpEnabled),
            "signUpCollectsPassword": .bool(settings.signUpCollectsPassword),
            "blockedMethodIds": .array(settings.blockedMethodIds.sorted().map(JSON.string)),
            "serverClockOffset": .double(settings.serverClockOffset),
            "includeOptionalFields": .bool(settings.includeOptionalFields),
            "latency": .double(settings.latency),
            "redirectURIs": .array(settings.redirectURIs.map(JSON.string)),
            "authorizationCodeLifetime": .double(settings.authorizationCodeLifetime),
            "pushedAuthorizationRequests": .string(settings.pushedAuthorizationRequests.rawValue),
            "pushedAuthorizationRequestLifetime": .double(settings.pushedAuthorizationRequestLifetime),
            "dpop": .string(settings.dpop.rawValue),
            "dpopNonces": .bool(settings.dpopNonces),
            "dpopNonceLifetime": .double(settings.dpopNonceLifetime),
            "dpopProofLifetime": .double(settings.dpopProofLifetime),
            "clientAssertionKey": settings.clientAssertionKey.map { key -> JSON in
                var members = JSONObject()
                for (name, value) in key.sorted(by: { $0.key < $1.key }) { members[name] = .string(value) }
                return .object(members)
            } ?? .null,
            "authorizationChallengeEndpoint": .bool(settings.authorizationChallengeEndpoint),
            "authorizationChallengeIdentifierFirst": .bool(settings.authorizationChallengeIdentifierFirst),
            "discoveryDocuments": .string(settings.discoveryDocuments.rawValue),
            "nativeAuthV2": .bool(settings.nativeAuthV2),
            "nativeAuthV2FirstFactorChoice": .bool(settings.nativeAuthV2FirstFactorChoice),
            "nativeAuthV2PasswordRecovery": .bool(settings.nativeAuthV2PasswordRecovery),
            "nativeAuthV2RecoveryMethods": .string(settings.nativeAuthV2RecoveryMethods.rawValue),
            "nativeAuthV2SMSRiskVerification": .bool(settings.nativeAuthV2SMSRiskVerification),
            "nativeAuthV2SignUpPasswordBeforeCode": .bool(settings.nativeAuthV2SignUpPasswordBeforeCode),
            "nativeAuthV2SignUpAsksAgain": .bool(settings.nativeAuthV2SignUpAsksAgain),
            "nativeAuthV2ChallengeWithoutFactor": .bool(settings.nativeAuthV2ChallengeWithoutFactor),
            "nativeAuthV2DraftCodeName": .bool(settings.nativeAuthV2DraftCodeName),
        ]
    }
}
