#!/usr/bin/env bash
# Replays a fuzz target's seed corpus with the plain (non-libFuzzer) build:
# every seed must load or fail with ember::Error, never crash.
#   fuzzer_replay_test.sh FUZZER SEED_DIR_OR_FILE...
set -euo pipefail
"$@"
