#!/usr/bin/env bash
# Times two icm builds starting up, as whole processes, in turn (A B A B):
# `icm --version` (nothing but the process and its initialisers) and
# `icm status` on the course-research sample, and prints each one's median
# CPU (user + system) and wall time with the medians of the ratios A/B
# taken pair by pair.
#
#   bench/start.sh ICM_A ICM_B [PAIRS]     (PAIRS defaults to 31)
set -euo pipefail

if [[ $# -lt 2 ]]; then
	echo "usage: $0 ICM_A ICM_B [PAIRS]" >&2
	exit 2
fi
a=$1 b=$2 pairs=${3:-31}
ws=$(cd "$(dirname "$0")/../workspaces/course-research" && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# run BIN ARGS...: one run, printing "cpu wall" in seconds.
run() {
	local TIMEFORMAT='%U %S %R'
	{ time "$@" >/dev/null 2>&1 || true; } 2>"$tmp"
	awk '{ printf "%.4f %.4f\n", $1 + $2, $3 }' "$tmp"
}

for what in version status; do
	args=(--version)
	[[ $what == status ]] && args=(status -w "$ws")
	run "$a" "${args[@]}" >/dev/null # warm the caches
	run "$b" "${args[@]}" >/dev/null
	echo "== icm ${args[*]}"
	for _ in $(seq 1 "$pairs"); do
		echo "$(run "$a" "${args[@]}") $(run "$b" "${args[@]}")"
	done | awk '
		function median(v, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
			return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
		}
		{ n++; ac[n] = $1; aw[n] = $2; bc[n] = $3; bw[n] = $4; rc[n] = $3 > 0 ? $1 / $3 : 1; rw[n] = $4 > 0 ? $2 / $4 : 1 }
		END {
			printf "A cpu %.1f ms, wall %.1f ms (medians of %d pairs)\n", median(ac, n) * 1000, median(aw, n) * 1000, n
			printf "B cpu %.1f ms, wall %.1f ms\n", median(bc, n) * 1000, median(bw, n) * 1000
			printf "A/B cpu %.2f, wall %.2f\n", median(rc, n), median(rw, n)
		}'
done
