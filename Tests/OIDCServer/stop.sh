#!/usr/bin/env bash
# Integration-test fixture: stops the glewlwyd and the proxy in front of it that start.sh started
# in WORKDIR (the directory and its database stay, for reading the log).
set -u
run=${1:?workdir}
for name in proxy glewlwyd; do
    [ -f "$run/$name.pid" ] && kill "$(cat "$run/$name.pid")" 2>/dev/null
    rm -f "$run/$name.pid"
done
