/// Reflection (`dump`, debuggers, `Mirror`) of the SDK's public types that hold secrets shows
/// their description only, never the tokens inside. The code-entry states get it from
/// ``CodeRequiredState``.
extension SignInPasswordRequiredState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension AwaitingMFAState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension RegisterStrongAuthState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension RegisterStrongAuthVerificationRequiredState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension UserAccountResult: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension TokenResult: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension NativeAuthClient: CustomReflectable {
    /// Shows the client id and authority only.
    public var customMirror: Mirror {
        Mirror(self, children: ["clientId": configuration.clientId, "authority": configuration.authority])
    }
}

extension SignUpPasswordRequiredState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension SignUpAttributesRequiredState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension SignInAfterSignUpState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension ResetPasswordRequiredState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension SignInAfterResetPasswordState: CustomReflectable {
    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension SignInParameters: CustomReflectable {
    /// Shows the description only: the password is never reflected.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension SignUpParameters: CustomReflectable {
    /// Shows the description only: the password and attribute values are never reflected.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension WebAuthClient: CustomReflectable {
    /// Shows the issuer, client id and redirect URI only.
    public var customMirror: Mirror {
        Mirror(self, children: ["issuer": issuer, "clientId": clientId, "redirectURI": redirectURI])
    }
}
