#!/usr/bin/env bash
# Runs icm over the shipped files a hostile workspace can hold, and prints
# each command's wall time and peak RSS (GNU time's "Maximum resident set
# size"): `icm status` and `icm check` with a config.toml of inline tables
# nested 4,000 levels (48 KB) and with one of 1 MB, `icm history` over a 65 MB trace of
# 5 million 13-byte lines, and `icm history --diff` between two 8 MB
# versions of an output whose lines repeat (700,000 lines of a thousand
# kinds, in two orders). Give it one or more icm
# binaries to compare (an old build and a new one); each command is cut
# off after LIMIT seconds (120 unless set). ONLY=history (or status,
# check, diff) runs only the commands of that name.
#
#   bench/hostile-files.sh ICM [ICM...]
set -euo pipefail

if [[ $# -lt 1 ]]; then
	echo "usage: $0 ICM [ICM...]" >&2
	exit 2
fi
limit=${LIMIT:-120}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A one-stage workspace.
base() {
	local ws=$1
	mkdir -p "$ws/pipeline/01-a/output"
	printf '# Identity\n' >"$ws/CLAUDE.md"
	printf '# Stage: 01-a\n\n## Process\nWrite.\n\n## Outputs\n- out.md -> output/\n' >"$ws/pipeline/01-a/CONTEXT.md"
}

base "$tmp/config48k"
python3 -c 'import sys; n=4000; sys.stdout.write("a = " + "{b = "*n + "1" + "}"*n + "\n")' >"$tmp/config48k/config.toml"
base "$tmp/config1m"
python3 -c '
import sys
one = "{b = "*1000 + "1" + "}"*1000
out, i = [], 0
while sum(map(len, out)) < (1 << 20) - len(one) - 16:
    out.append("k%d = %s\n" % (i, one)); i += 1
sys.stdout.write("".join(out))' >"$tmp/config1m/config.toml"
base "$tmp/trace65m"
mkdir -p "$tmp/trace65m/history"
python3 -c '
import sys
w = sys.stdout.write
w("{\"kind\":\"model\",\"time\":\"2026-12-01T10:00:00Z\",\"stage\":\"01-a\",\"model\":{\"Call\":1,\"Model\":\"tiny\",\"PromptTokens\":10,\"OutputTokens\":1}}\n")
w("{\"kind\":\"x\"}\n" * 5000000)
w("{\"kind\":\"run-end\",\"time\":\"2026-12-01T10:01:00Z\"}\n")' >"$tmp/trace65m/history/20261201-100000-aaaaaa.jsonl"
base "$tmp/diff8m"
kept="$tmp/diff8m/history/versions/01-a/20261201-100000.000-20261201-100000-aaaaaa"
mkdir -p "$kept"
python3 -c '
import sys
lines = ["- point %d\n" % (i % 1000) for i in range(700000)]
sys.stdout.write("".join(lines))' >"$kept/out.md"
python3 -c '
import sys
lines = ["- point %d\n" % ((i * 7) % 1000) for i in range(700000)]
sys.stdout.write("".join(lines))' >"$tmp/diff8m/pipeline/01-a/output/out.md"

measure() {
	local icm=$1 what=$2 ws=$3
	shift 3
	if [[ -n ${ONLY:-} && $what != "$ONLY"* ]]; then
		return
	fi
	local out
	/usr/bin/time -v -o "$tmp/time.txt" timeout "$limit" "$icm" "$@" -w "$ws" >/dev/null 2>&1 || true
	out=$(cat "$tmp/time.txt")
	local wall rss code
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' <<<"$out")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' <<<"$out")
	code=$(sed -n 's/.*Exit status: //p' <<<"$out")
	printf '%-44s %-34s wall %-9s peak RSS %6d MB  exit %s\n' "$(basename "$icm")" "$what" "$wall" $((rss / 1024)) "$code"
}

for icm in "$@"; do
	measure "$icm" "status, config.toml nested 4,000 (48 KB)" "$tmp/config48k" status
	measure "$icm" "check, config.toml nested 4,000 (48 KB)" "$tmp/config48k" check
	measure "$icm" "status, config.toml 1 MB nested" "$tmp/config1m" status
	measure "$icm" "check, config.toml 1 MB nested" "$tmp/config1m" check
	measure "$icm" "history, 65 MB trace" "$tmp/trace65m" history
	measure "$icm" "diff: history --diff, two 8 MB files" "$tmp/diff8m" history --diff 01-a
done
