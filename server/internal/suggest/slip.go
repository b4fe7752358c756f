package suggest

import "strings"

// Slip returns the candidate name is a slip of the keys away from: one
// letter wrong, missing, added or two letters swapped (two such slips in
// a name of eight letters or more), else "". It is stricter than Nearest:
// it judges a word a person chose freely (a heading), where "Goals" is
// not a misspelt "Tools". Case is ignored; an equal candidate is no slip.
func Slip(name string, candidates []string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	allowed := 1
	if len(n) >= 8 {
		allowed = 2
	}
	best, bestD := "", allowed+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == n {
			return ""
		}
		if d := swapDistance(n, lc); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// swapDistance is the edit distance between a and b in which swapping
// two neighbouring letters is one edit (the optimal string alignment
// distance), in bytes.
func swapDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
