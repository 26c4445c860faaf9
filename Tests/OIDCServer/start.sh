#!/usr/bin/env bash
# Integration-test fixture: runs a disposable glewlwyd, listening on 127.0.0.1 only, with a fresh
# SQLite database in WORKDIR, and prints its issuer on stdout.
#
#   usage   PORT=4593 start.sh [WORKDIR]        (stop it with stop.sh WORKDIR)
#   issuer  http://127.0.0.1:PORT/api/oidc, discovery under {issuer}/.well-known/openid-configuration
#           http://127.0.0.1:PORT/api/oidc-par: the same plugin again, requiring pushed authorization
#             requests (RFC 9126: oauth-par-allowed, oauth-par-required, oauth-par-duration 90 s,
#             oauth-par-request_uri-prefix urn:ietf:params:oauth:request_uri:); PAR is off at the first.
#             Its PAR endpoint is {issuer}/par.
#           http://127.0.0.1:PORT/api/oidc-dpop: the plugin with DPoP published (RFC 9449:
#             oauth-dpop-allowed, so dpop_signing_alg_values_supported; oauth-dpop-iat-duration 60 s
#             and oauth-dpop-iat-gap-duration 5 s: a proof's iat may be 60 s behind, 5 s ahead;
#             oauth-dpop-dpop_bound_access_tokens-property dpop_bound_access_tokens, the client
#             property that makes DPoP mandatory for a client).
#           http://127.0.0.1:PORT/api/oidc-dpop-nonce: the same, demanding a server nonce in every
#             proof (oauth-dpop-nonce-mandatory; oauth-dpop-nonce-counter 3: a client's nonce
#             changes after 4 accepted proofs, and the accepting answer carries the new one).
#           http://127.0.0.1:PORT/api/oidc-es256, .../oidc-ps256, .../oidc-eddsa: the plugin signing
#             its ID and access tokens with ES256 (P-256 key), PS256 (RSA key) or EdDSA (Ed25519
#             key) instead of RS256 (jwt-type ecdsa, rsa-pss, eddsa; jwt-key-size 256). The rule:
#             {server}/api/oidc-<alg in lower case>. The keys are made here, into WORKDIR, at
#             every start. oidc-ps256 also publishes DPoP, with oidc-dpop's settings.
#   user    alice, password alice-password; may receive openid profile email offline_access api.read
#   clients native-app: public; redirect URIs http://127.0.0.1:8765/callback and
#             com.example.app://oauth/callback; post-logout URI http://127.0.0.1:8765/logged-out
#           conf-app: confidential, secret conf-secret
#           dpop-app: public, DPoP mandatory (dpop_bound_access_tokens true); redirect URI
#             http://127.0.0.1:8765/callback
#   grants  authorization code with PKCE (S256 only, mandatory for public clients); refresh, rolling,
#           so a refresh answer carries no new refresh token; password; device code; client
#           credentials. Revocation and introspection for confidential clients, dynamic client
#           registration open to all, end session.
#
# Driving a login without a browser (what the Swift integration tests do):
#   1. POST {server}/api/auth/ with JSON {"username":"alice","password":"alice-password"}: session cookie
#   2. PUT  {server}/api/auth/grant/native-app with JSON {"scope":"..."}: consent, once per scope set
#   3. GET  {issuer}/auth?response_type=code&...&g_continue with the cookie: 302 to the redirect URI
#   4. POST {issuer}/token with the code and the PKCE verifier
#
# Quirks a client meets here: token_type is lower-case "bearer"; a wrong PKCE verifier or a used
# code gets 403 {"error":"invalid_code"}; an unknown refresh token gets a 400 with an empty body;
# and requests that write at the same moment sometimes fail with server_error (one SQLite connection
# shared by its threads), which is why glewlwyd listens on a second loopback port behind
# serial_proxy.py, which serves PORT and passes the requests on one at a time.
# Registration answers 200, not 201, and stores a client registered with token_endpoint_auth_method
# none as confidential without a secret, so that client's code exchange gets 403 unauthorized_client
# (register with client_secret_basic to sign in). Revocation needs a confidential client; a public
# one gets a bare 401. The PAR endpoint refuses anything (no PKCE challenge, a wrong secret) with a
# bare 403, not RFC 9126's 400/401 with an OAuth error; it reads a pushed login_hint, prompt, max_age,
# display or ui_locales as an unknown parameter, which it does not apply and copies into the redirect
# to the app; and the authorization endpoint answers a used, unknown or missing request_uri with a 403
# page. end_session redirects to the server's own logout page (login.html with
# callback_url and sid), and only with a post_logout_redirect_uri registered for the client.
# DPoP: every instance checks a proof that comes and binds the tokens to its key (oauth-dpop-allowed
# only publishes the algorithms and takes dpop_jkt at the authorization endpoint); token_type is
# then "DPoP" and the JWT access token has cnf.jkt. A refused proof gets 403 invalid_dpop_proof
# (RFC 9449 has 400), and so does a proof whose iat is out of the window; the token endpoint's
# nonce challenge is 400 use_dpop_nonce with DPoP-Nonce, the userinfo endpoint's a bare 401 with
# WWW-Authenticate: DPoP error="use_dpop_nonce" and DPoP-Nonce. The nonce is the client's, shared by
# its every user and every instance that demands one. The userinfo endpoint does not check that a
# proof's key is the one in the token's cnf.jkt (any key's proof is accepted). Revocation ignores
# proofs (it authenticates the confidential client only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run=${1:-$(mktemp -d)}
port=${PORT:-4593}
mkdir -p "$run"
if curl -s -o /dev/null "http://127.0.0.1:$port/api/"; then echo "port $port is busy" >&2; exit 1; fi
rm -f "$run/glewlwyd.db"
zcat /usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz | sqlite3 "$run/glewlwyd.db"
# The client module must store post_logout_redirect_uris as a list for end_session to honour it,
# and dpop_bound_access_tokens (DPoP required of a client) at all: it keeps listed properties only.
sqlite3 "$run/glewlwyd.db" "UPDATE g_client_module_instance SET gcmi_parameters = json_set(gcmi_parameters, '\$.\"data-format\".post_logout_redirect_uris', json('{\"multiple\":true,\"read\":true,\"write\":true}'), '\$.\"data-format\".dpop_bound_access_tokens', json('{\"multiple\":false,\"read\":true,\"write\":true}')) WHERE gcmi_name='database';"
[ -f "$run/oidc-key.pem" ] || { openssl genrsa -out "$run/oidc-key.pem" 2048 2>/dev/null; openssl rsa -in "$run/oidc-key.pem" -pubout -out "$run/oidc-pub.pem" 2>/dev/null; }
# The signing keys of the instances that sign with other algorithms, made here for this run only
# (none is kept in the repository): a P-256 key (ES256), a second RSA key (PS256) and an Ed25519
# key (EdDSA), each with its public key beside it.
[ -f "$run/oidc-es256-key.pem" ] || { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$run/oidc-es256-key.pem" 2>/dev/null; openssl pkey -in "$run/oidc-es256-key.pem" -pubout -out "$run/oidc-es256-pub.pem" 2>/dev/null; }
[ -f "$run/oidc-ps256-key.pem" ] || { openssl genrsa -out "$run/oidc-ps256-key.pem" 2048 2>/dev/null; openssl rsa -in "$run/oidc-ps256-key.pem" -pubout -out "$run/oidc-ps256-pub.pem" 2>/dev/null; }
[ -f "$run/oidc-eddsa-key.pem" ] || { openssl genpkey -algorithm ed25519 -out "$run/oidc-eddsa-key.pem" 2>/dev/null; openssl pkey -in "$run/oidc-eddsa-key.pem" -pubout -out "$run/oidc-eddsa-pub.pem" 2>/dev/null; }
backend=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -e "s#@PORT@#$port#g" -e "s#@BACKEND_PORT@#$backend#g" -e "s#@DB@#$run/glewlwyd.db#g" "$here/glewlwyd.conf.in" > "$run/glewlwyd.conf"
glewlwyd --config-file="$run/glewlwyd.conf" > "$run/glewlwyd.log" 2>&1 &
echo $! > "$run/glewlwyd.pid"
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$backend/api/" && break; sleep 0.1; done
kill -0 "$(cat "$run/glewlwyd.pid")" 2>/dev/null || { cat "$run/glewlwyd.log" >&2; exit 1; }
python3 "$here/serial_proxy.py" "$port" "$backend" > "$run/proxy.log" 2>&1 &
echo $! > "$run/proxy.pid"
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/api/" && break; sleep 0.1; done
kill -0 "$(cat "$run/proxy.pid")" 2>/dev/null || { cat "$run/proxy.log" >&2; exit 1; }
python3 "$here/setup.py" "http://127.0.0.1:$port" "$run" >"$run/setup.log" || { cat "$run/setup.log" >&2; exit 1; }
echo "http://127.0.0.1:$port/api/oidc"
