#!/usr/bin/env bash
# Integration-test fixture: stops the glewlwyd that start.sh started in WORKDIR (the directory and
# its database stay, for reading the log).
set -u
run=${1:?workdir}
[ -f "$run/glewlwyd.pid" ] && kill "$(cat "$run/glewlwyd.pid")" 2>/dev/null
rm -f "$run/glewlwyd.pid"
