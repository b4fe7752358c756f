package evidence

import (
	"strings"
)

// normalNumber writes a number in one form, so that two spellings of one
// value compare equal: thousands separators dropped ("1,850" and "1850"),
// trailing zeros of a fraction dropped ("3.50" and "3.5", "3.0" and "3"),
// leading zeros dropped ("07" and "7"). It reports false, and leaves the
// number to be compared as written, for what is not one decimal number
// ("127.0.0.1", "1,85").
func normalNumber(s string) (string, bool) {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if hasFrac && (frac == "" || strings.ContainsAny(frac, ".,")) {
		return s, false
	}
	if strings.Contains(intPart, ",") {
		groups := strings.Split(intPart, ",")
		if len(groups[0]) == 0 || len(groups[0]) > 3 {
			return s, false
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return s, false
			}
		}
		intPart = strings.Join(groups, "")
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return intPart, true
	}
	return intPart + "." + frac, true
}

// numberWord returns the value of a number word a source may spell out
// where the output writes digits ("five hours" for "5 hours").
func numberWord(w string) (string, bool) {
	switch w {
	case "zero":
		return "0", true
	case "one", "once", "single":
		return "1", true
	case "two", "twice", "pair", "double":
		return "2", true
	case "three":
		return "3", true
	case "four":
		return "4", true
	case "five":
		return "5", true
	case "six":
		return "6", true
	case "seven":
		return "7", true
	case "eight":
		return "8", true
	case "nine":
		return "9", true
	case "ten":
		return "10", true
	case "eleven":
		return "11", true
	case "twelve", "dozen":
		return "12", true
	case "fifteen":
		return "15", true
	case "twenty":
		return "20", true
	case "thirty":
		return "30", true
	case "forty":
		return "40", true
	case "fifty":
		return "50", true
	case "sixty":
		return "60", true
	case "hundred":
		return "100", true
	case "thousand":
		return "1000", true
	}
	return "", false
}

// isNumber reports whether a word is a number (it starts with a digit).
func isNumber(w word) bool { return w.term != "" && w.term[0] >= '0' && w.term[0] <= '9' }
