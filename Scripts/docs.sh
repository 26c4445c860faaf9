#!/usr/bin/env bash
# Builds the NativeAuth API reference (the DocC catalog in Sources/NativeAuth/NativeAuth.docc with
# the module's documentation comments) into .build/NativeAuth.doccarchive, offline, with the docc
# of the Swift toolchain. Any documentation warning (a broken symbol link, an undocumented
# parameter) fails it.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --target NativeAuth
triple=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
swift symbolgraph-extract -module-name NativeAuth -I .build/debug/Modules -target "$triple" \
    -output-dir "$graphs" -minimum-access-level public
docc convert Sources/NativeAuth/NativeAuth.docc --additional-symbol-graph-dir "$graphs" \
    --output-path .build/NativeAuth.doccarchive --warnings-as-errors
echo "API reference: .build/NativeAuth.doccarchive (docc preview serves it)"
