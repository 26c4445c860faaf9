#!/usr/bin/env bash
# Integration-test fixture: puts the glewlwyd OpenID Connect server (Debian package) and the tools
# start.sh needs (sqlite3, openssl, curl) on this machine, skipping the package's interactive setup.
# Needs root and apt; does nothing when they are already installed.
set -euo pipefail
command -v glewlwyd >/dev/null && command -v sqlite3 >/dev/null && exit 0
apt-get update -qq
echo "glewlwyd glewlwyd/config_type select No configuration" | debconf-set-selections
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends glewlwyd sqlite3 openssl curl >/dev/null
