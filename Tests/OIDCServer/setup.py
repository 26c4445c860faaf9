#!/usr/bin/env python3
"""Integration-test fixture, called by start.sh: signs in to a new glewlwyd as its default
administrator and creates, over the admin REST API, the scopes, the test user, the OpenID Connect
plugin (signing with the RSA key in WORKDIR), further instances of it (one that requires pushed
authorization requests, two with DPoP, one of them demanding nonces, three signing with ES256, PS256
and EdDSA with the other keys in WORKDIR), and the test clients.
Python standard library only.

Usage: setup.py SERVER_URL WORKDIR
"""
import http.cookiejar, json, sys, urllib.request

base, keydir = sys.argv[1], sys.argv[2]
api = base + "/api"
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

def post(path, body, what):
    req = urllib.request.Request(api + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with opener.open(req) as r:
            print("ok", what)
    except urllib.error.HTTPError as e:
        sys.exit(f"failed {what}: {e.code} {e.read().decode(errors='replace')}")

post("/auth/", {"username": "admin", "password": "password"}, "admin login")
for name in ("profile", "email", "offline_access", "api.read"):
    post("/scope/", {"name": name, "display_name": name, "description": name,
                     "password_required": True, "password_max_age": 0, "scheme": {}}, "scope " + name)
post("/user/", {"username": "alice", "password": "alice-password", "name": "Alice Example",
                "email": "alice@example.com", "enabled": True,
                "scope": ["openid", "profile", "email", "offline_access", "api.read", "g_profile"]}, "user alice")
params = {
    "iss": api + "/oidc", "jwt-type": "rsa", "jwt-key-size": "256",
    "key": open(f"{keydir}/oidc-key.pem").read(), "cert": open(f"{keydir}/oidc-pub.pem").read(),
    "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600,
    "refresh-token-rolling": True, "allow-non-oidc": True,
    "auth-type-code-enabled": True, "auth-type-token-enabled": True, "auth-type-implicit-enabled": True,
    "auth-type-none-enabled": True, "auth-type-password-enabled": True, "auth-type-client-enabled": True,
    "auth-type-refresh-enabled": True, "auth-type-device-enabled": True,
    "device-authorization-expiration": 600, "device-authorization-interval": 1,
    "pkce-allowed": True, "pkce-method-plain-allowed": False, "pkce-required-public-client": True,
    "introspection-revocation-allowed": True, "introspection-revocation-allow-target-client": True,
    "introspection-revocation-auth-scope": [],
    "register-client-allowed": True, "register-client-auth-scope": [], "register-client-credentials-scope": [],
    "register-client-management-allowed": True,
    "session-management-allowed": True, "session-cookie-name": "GLEWLWYD2_OIDC_SID", "session-cookie-expiration": 2419200,
    "subject-type": "public", "scope": [],
    "name-claim": "mandatory", "email-claim": "mandatory", "name-claim-scope": ["profile"], "email-claim-scope": ["email"],
    # glewlwyd checks a DPoP proof at every instance, the ones that do not publish DPoP included,
    # and reads how old or how far ahead its iat may be from these two settings whether DPoP is
    # published or not: left out, both are 0, and a proof is good only in the second it was
    # stamped (a refresh that crosses a second boundary is refused "DPoP invalid").
    "oauth-dpop-iat-duration": 60, "oauth-dpop-iat-gap-duration": 5,
}
post("/mod/plugin/", {"module": "oidc", "name": "oidc", "display_name": "OIDC", "enabled": True, "parameters": params}, "oidc plugin")
# A second instance of the plugin, at {server}/api/oidc-par, that takes only pushed authorization
# requests (RFC 9126). The PAR settings are the plugin's, not a client's, so the instance above keeps
# them off and its tests run as before; the clients below are the server's and sign in at either.
params_par = dict(params, **{
    "iss": api + "/oidc-par",
    "oauth-par-allowed": True, "oauth-par-required": True, "oauth-par-duration": 90,
    "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:",
    "session-cookie-name": "GLEWLWYD2_OIDC_PAR_SID",
})
post("/mod/plugin/", {"module": "oidc", "name": "oidc-par", "display_name": "OIDC (PAR required)", "enabled": True,
                      "parameters": params_par}, "oidc-par plugin")
# Two more instances for DPoP (RFC 9449), at {server}/api/oidc-dpop and {server}/api/oidc-dpop-nonce.
# glewlwyd checks a DPoP proof wherever one comes (the first instance binds tokens too): these
# settings publish dpop_signing_alg_values_supported, bound how old (60 s) or how far ahead (5 s)
# a proof's iat may be, name the client property that makes DPoP mandatory for a client, and, at
# the second one only, demand a server nonce in every proof: the nonce is the client's (shared by
# every instance that demands one) and changes at every 4th proof it accepts
# (oauth-dpop-nonce-counter + 1), whose answer brings the new one in DPoP-Nonce.
params_dpop = dict(params, **{
    "iss": api + "/oidc-dpop",
    "oauth-dpop-allowed": True, "oauth-dpop-iat-duration": 60, "oauth-dpop-iat-gap-duration": 5,
    "oauth-dpop-dpop_bound_access_tokens-property": "dpop_bound_access_tokens",
    "session-cookie-name": "GLEWLWYD2_OIDC_DPOP_SID",
})
post("/mod/plugin/", {"module": "oidc", "name": "oidc-dpop", "display_name": "OIDC (DPoP)", "enabled": True,
                      "parameters": params_dpop}, "oidc-dpop plugin")
params_dpop_nonce = dict(params_dpop, **{
    "iss": api + "/oidc-dpop-nonce",
    "oauth-dpop-nonce-mandatory": True, "oauth-dpop-nonce-counter": 3,
    "session-cookie-name": "GLEWLWYD2_OIDC_DPOP_NONCE_SID",
})
post("/mod/plugin/", {"module": "oidc", "name": "oidc-dpop-nonce", "display_name": "OIDC (DPoP with nonces)",
                      "enabled": True, "parameters": params_dpop_nonce}, "oidc-dpop-nonce plugin")
post("/client/", {"client_id": "native-app", "name": "Native test app", "confidential": False, "enabled": True,
                  "redirect_uri": ["http://127.0.0.1:8765/callback", "com.example.app://oauth/callback"],
                  "post_logout_redirect_uris": ["http://127.0.0.1:8765/logged-out"],
                  "authorization_type": ["code", "refresh_token", "password", "device_authorization", "delete_token", "id_token", "token"],
                  "scope": []}, "client native-app")
post("/client/", {"client_id": "conf-app", "name": "Confidential test app", "confidential": True, "enabled": True,
                  "client_secret": "conf-secret", "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
                  "redirect_uri": ["http://127.0.0.1:8765/callback"],
                  "post_logout_redirect_uris": ["http://127.0.0.1:8765/logged-out"],
                  "authorization_type": ["code", "refresh_token", "password", "client_credentials", "device_authorization", "delete_token"],
                  "scope": ["api.read"]}, "client conf-app")
# A public client that must use DPoP (its dpop_bound_access_tokens property, named by the DPoP
# instances above): a token request without a proof is refused there.
post("/client/", {"client_id": "dpop-app", "name": "DPoP test app", "confidential": False, "enabled": True,
                  "redirect_uri": ["http://127.0.0.1:8765/callback"],
                  "authorization_type": ["code", "refresh_token", "device_authorization", "delete_token"],
                  "dpop_bound_access_tokens": "true", "scope": []}, "client dpop-app")
# Three more instances, each signing its ID and access tokens with another algorithm (the plugin's
# jwt-type, jwt-key-size, key and cert, with the key start.sh made for it):
# {server}/api/oidc-es256 (ecdsa, P-256: ES256), {server}/api/oidc-ps256 (rsa-pss: PS256) and
# {server}/api/oidc-eddsa (eddsa, Ed25519: EdDSA). Their JWKS publish the public key only. The
# PS256 one also publishes DPoP, as /api/oidc-dpop does, so that a client there proves its key with
# PS256 too.
for suffix, jwt_type, display in (("es256", "ecdsa", "ES256"), ("ps256", "rsa-pss", "PS256"), ("eddsa", "eddsa", "EdDSA")):
    params_alg = dict(params_dpop if suffix == "ps256" else params, **{
        "iss": api + "/oidc-" + suffix, "jwt-type": jwt_type, "jwt-key-size": "256",
        "key": open(f"{keydir}/oidc-{suffix}-key.pem").read(), "cert": open(f"{keydir}/oidc-{suffix}-pub.pem").read(),
        "session-cookie-name": "GLEWLWYD2_OIDC_" + suffix.upper() + "_SID",
    })
    post("/mod/plugin/", {"module": "oidc", "name": "oidc-" + suffix, "display_name": f"OIDC ({display})", "enabled": True,
                          "parameters": params_alg}, f"oidc-{suffix} plugin")
# private_key_jwt client authentication (RFC 7523 §2.2, OpenID Connect Core §9), at
# {server}/api/oidc-private-key-jwt only: glewlwyd takes client_assertion where
# request-parameter-allow is on (it then lists client_secret_jwt, and private_key_jwt once a client
# property for keys is named, in token_endpoint_auth_methods_supported), and reads a client's public
# keys from the property client-jwks-parameter names (the client module keeps "jwks" as a JWK Set).
# It checks the assertion's signature with the key whose kid the header names (a kid is required),
# iss = sub = client_id, aud = the endpoint's own URL ({issuer}/token, /revoke, /introspect, /par or
# /device_authorization; the issuer is refused, alone or in a list with that URL), exp at most
# request-maximum-exp (3600 s by default) ahead, and a jti not seen before; a refusal is a bare 403.
params_pkjwt = dict(params, **{
    "iss": api + "/oidc-private-key-jwt",
    "request-parameter-allow": True, "client-jwks-parameter": "jwks",
    "session-cookie-name": "GLEWLWYD2_OIDC_PKJWT_SID",
})
post("/mod/plugin/", {"module": "oidc", "name": "oidc-private-key-jwt", "display_name": "OIDC (private_key_jwt)",
                      "enabled": True, "parameters": params_pkjwt}, "oidc-private-key-jwt plugin")
# A confidential client that authenticates with private_key_jwt only. Its key is a placeholder:
# the public part of RFC 7515 appendix A.2's example RSA key (kid rfc7515-a2), whose private part
# the RFC publishes, so it proves nothing outside tests. A client that makes its own key registers
# it instead, through dynamic registration (token_endpoint_auth_method private_key_jwt and jwks).
rfc7515_a2 = {"kty": "RSA", "kid": "rfc7515-a2", "use": "sig", "alg": "PS256", "e": "AQAB", "n": (
    "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yR"
    "T-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXB"
    "dQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9ia"
    "GNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ")}
post("/client/", {"client_id": "pkjwt-app", "name": "private_key_jwt test app", "confidential": True, "enabled": True,
                  "token_endpoint_auth_method": ["private_key_jwt"], "jwks": {"keys": [rfc7515_a2]},
                  "redirect_uri": ["http://127.0.0.1:8765/callback"],
                  "authorization_type": ["code", "refresh_token", "client_credentials", "device_authorization", "delete_token"],
                  "scope": ["api.read"]}, "client pkjwt-app")
