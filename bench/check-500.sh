#!/usr/bin/env bash
# Times `icm check` on a generated 500-stage workspace (the one
# BenchmarkCheckWorkspace500 builds), two icm binaries in turn, A B A B ...,
# and prints each one's median CPU (user + system) and wall time with the
# medians of the ratios A/B taken pair by pair. Pairing keeps the ratio
# meaningful on a machine whose load moves while it runs.
#
#   bench/check-500.sh ICM_A ICM_B [PAIRS]     (PAIRS defaults to 15)
set -euo pipefail

if [[ $# -lt 2 ]]; then
	echo "usage: $0 ICM_A ICM_B [PAIRS]" >&2
	exit 2
fi
a=$1 b=$2 pairs=${3:-15}
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT

# The workspace: each stage reads its own input, the previous stage's
# output and a section of a shared reference.
printf '# Identity\n\nYou help with one stage at a time.\n' >"$ws/CLAUDE.md"
printf '# Routing\n\nStages run in order.\n' >"$ws/CONTEXT.md"
mkdir -p "$ws/_config"
printf '# Audience\n\n## Who\nDevelopers.\n\n## Tone\nPlain.\n' >"$ws/_config/audience.md"
for i in $(seq 1 500); do
	name=$(printf '%03d-step' "$i")
	prev=""
	if ((i > 1)); then
		prev=$(printf -- '- Layer 4 (working): ../%03d-step/output/out.md\n' $((i - 1)))$'\n'
	fi
	mkdir -p "$ws/pipeline/$name"
	printf '# Input %d\n\nSome working material for step %d.\n' "$i" "$i" >"$ws/pipeline/$name/input.md"
	cat >"$ws/pipeline/$name/CONTEXT.md" <<EOF
# Stage: $name

Step $i of the generated pipeline.

## Inputs
- Layer 4 (working): input.md
${prev}- Layer 3 (reference): ../../_config/audience.md#Tone

## Tools
none

## Process
Transform the working material into the next step's input. Keep every
heading, and write Markdown only.

## Outputs
- out.md -> output/

## Verify
- non-empty
EOF
done

# run BIN: one `icm check`, printing "cpu wall" in seconds.
run() {
	local TIMEFORMAT='%U %S %R'
	{ time "$1" check -w "$ws" >/dev/null 2>&1 || true; } 2>"$ws/.time"
	awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$ws/.time"
}

run "$a" >/dev/null # warm the caches
run "$b" >/dev/null
for _ in $(seq 1 "$pairs"); do
	echo "$(run "$a") $(run "$b")"
done | awk '
	function median(v, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
	}
	{ n++; ac[n] = $1; aw[n] = $2; bc[n] = $3; bw[n] = $4; rc[n] = $1 / $3; rw[n] = $2 / $4 }
	END {
		printf "A cpu %.3f s, wall %.3f s (medians of %d pairs)\n", median(ac, n), median(aw, n), n
		printf "B cpu %.3f s, wall %.3f s\n", median(bc, n), median(bw, n)
		c = median(rc, n); w = median(rw, n) # sorts rc and rw: [1] is the least, [n] the most
		printf "A/B cpu %.2f (%.2f-%.2f), wall %.2f (%.2f-%.2f)\n", c, rc[1], rc[n], w, rw[1], rw[n]
	}'
