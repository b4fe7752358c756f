package evidence

import "strings"

// stem strips the commonest English suffixes from a lower-case word so
// that the forms of one word meet: "batteries" and "battery", "pruning"
// and "pruned" and "prune", "quantization" and "quantized". It is a light
// stripper of our own, not Porter's algorithm: both the output and the
// sources go through it, so it need not give real roots, only the same
// stem for the same word; the rare two words it merges cost less than
// the paraphrases it lets match. Words of three letters or fewer, and
// words that are not plain ASCII letters, are left as they are.
func stem(w string) string {
	if len(w) <= 3 || !asciiLetters(w) {
		return w
	}
	// Plurals and the third person.
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 5:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	// Derivations that end in a verb.
	for _, s := range [][2]string{{"ization", "ize"}, {"isation", "ise"}, {"ational", "ate"}, {"ation", "ate"}, {"fully", "ful"}, {"ingly", ""}, {"edly", ""}} {
		if strings.HasSuffix(w, s[0]) && len(w)-len(s[0]) >= 3 {
			w = w[:len(w)-len(s[0])] + s[1]
			break
		}
	}
	// Inflections and comparison.
	for _, s := range []string{"ing", "est", "ed", "er", "ly"} {
		if strings.HasSuffix(w, s) && len(w)-len(s) >= 3 {
			w = undouble(w[:len(w)-len(s)])
			break
		}
	}
	// A final e comes and goes with the suffixes ("prune", "pruned").
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops one of a doubled final consonant left by a suffix
// ("running" to "run"), except the l, s and z English doubles in the
// root ("falling" keeps "fall").
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}
