#!/usr/bin/env bash
# Replays a fuzz target's seed corpus with the plain (non-libFuzzer) build:
# every seed must load or fail with ember::Error, never crash.
set -euo pipefail
"$1" "$2"
