package evidence

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// dateSpan is a date found in a text: the keys it matches under and where
// it is. A full date has one key per reading ("2024-03-12"; a 03/12/2024
// has two, one for each order of day and month); a month and year has
// "2024-03"; a day and month without a year "--03-12".
type dateSpan struct {
	keys       []string
	start, end int
}

const monthNames = `January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec`

// datePattern is one written form of a date and how to read its parts.
type datePattern struct {
	re *regexp.Regexp
	// read returns the date's keys from the submatches, or none when the
	// parts are not a date (a 13th month).
	read func(m []string) []string
}

// datePatterns are the common written forms, longest first, so that a
// full date is not also read as a month and a year. Month names must be
// capitalised, as English writes them, so "may" the verb is no month.
var datePatterns = sync.OnceValue(func() []datePattern {
	d := `([0-9]{1,2})(?:st|nd|rd|th)?`
	m := `(` + monthNames + `)\.?`
	y := `([0-9]{4})`
	re := func(s string) *regexp.Regexp { return regexp.MustCompile(`\b` + s + `\b`) }
	return []datePattern{
		{re(y + `-([0-9]{1,2})-([0-9]{1,2})`), func(s []string) []string { return full(s[1], s[2], s[3]) }},
		{re(d + `\s+` + m + `,?\s+` + y), func(s []string) []string { return full(s[3], month(s[2]), s[1]) }},
		{re(m + `\s+` + d + `,?\s+` + y), func(s []string) []string { return full(s[3], month(s[1]), s[2]) }},
		{re(`([0-9]{1,2})/([0-9]{1,2})/` + y), func(s []string) []string { return append(full(s[3], s[2], s[1]), full(s[3], s[1], s[2])...) }},
		{re(m + `,?\s+` + y), func(s []string) []string { return yearMonth(s[2], month(s[1])) }},
		{re(y + `-([0-9]{2})`), func(s []string) []string { return yearMonth(s[1], s[2]) }},
		{re(d + `\s+` + m), func(s []string) []string { return dayMonth(month(s[2]), s[1]) }},
		{re(m + `\s+` + d), func(s []string) []string { return dayMonth(month(s[1]), s[2]) }},
	}
})

// findDates returns the dates in text, in order, none overlapping.
func findDates(text string) []dateSpan {
	var out []dateSpan
	taken := func(a, b int) bool {
		for _, d := range out {
			if a < d.end && d.start < b {
				return true
			}
		}
		return false
	}
	for _, p := range datePatterns() {
		for _, loc := range p.re.FindAllStringSubmatchIndex(text, -1) {
			if taken(loc[0], loc[1]) {
				continue
			}
			sub := make([]string, len(loc)/2)
			for i := range sub {
				if loc[2*i] >= 0 {
					sub[i] = text[loc[2*i]:loc[2*i+1]]
				}
			}
			if keys := p.read(sub); len(keys) > 0 {
				out = append(out, dateSpan{keys: keys, start: loc[0], end: loc[1]})
			}
		}
	}
	sortSpans(out)
	return out
}

func sortSpans(ds []dateSpan) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j].start < ds[j-1].start; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

// month returns a month name's number, "01" to "12", or "" for a word
// that is no month's name or abbreviation.
func month(name string) string {
	switch name {
	case "January", "Jan":
		return "01"
	case "February", "Feb":
		return "02"
	case "March", "Mar":
		return "03"
	case "April", "Apr":
		return "04"
	case "May":
		return "05"
	case "June", "Jun":
		return "06"
	case "July", "Jul":
		return "07"
	case "August", "Aug":
		return "08"
	case "September", "Sept", "Sep":
		return "09"
	case "October", "Oct":
		return "10"
	case "November", "Nov":
		return "11"
	case "December", "Dec":
		return "12"
	}
	return ""
}

// part reads a month or a day, within 1 and hi.
func part(s string, hi int) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= hi
}

func full(y, m, d string) []string {
	mm, ok1 := part(m, 12)
	dd, ok2 := part(d, 31)
	if !ok1 || !ok2 {
		return nil
	}
	return []string{fmt.Sprintf("%s-%02d-%02d", y, mm, dd)}
}

func yearMonth(y, m string) []string {
	mm, ok := part(m, 12)
	if !ok {
		return nil
	}
	return []string{fmt.Sprintf("%s-%02d", y, mm)}
}

func dayMonth(m, d string) []string {
	mm, ok1 := part(m, 12)
	dd, ok2 := part(d, 31)
	if !ok1 || !ok2 {
		return nil
	}
	return []string{fmt.Sprintf("--%02d-%02d", mm, dd)}
}

// dateKeys returns every key a source's date makes known: a full date
// is also known as its month and year and as its day and month.
func dateKeys(d dateSpan) []string {
	var out []string
	for _, k := range d.keys {
		out = append(out, k)
		if len(k) == len("2006-01-02") && k[4] == '-' {
			out = append(out, k[:7], "--"+k[5:])
		}
	}
	return out
}

// findDatesIn returns the dates in text, whose words are ws. The date
// patterns run only on short windows around the words a date must have
// (a month's name, or a number of four digits, or one with a slash
// after it), not over the whole text: a source may be megabytes long.
func findDatesIn(text string, ws []word) []dateSpan {
	const reach = 16 // bytes on each side: "September 30th, 2024"
	var out []dateSpan
	winStart, winEnd := -1, -1
	flush := func() {
		if winStart < 0 {
			return
		}
		for _, d := range findDates(text[winStart:winEnd]) {
			d.start += winStart
			d.end += winStart
			out = append(out, d)
		}
		winStart = -1
	}
	for _, w := range ws {
		if !dateWord(text, w) {
			continue
		}
		a, b := max(0, w.start-reach), min(len(text), w.end+reach)
		if winStart >= 0 && a <= winEnd {
			winEnd = max(winEnd, b)
			continue
		}
		flush()
		winStart, winEnd = a, b
	}
	flush()
	return out
}

// dateWord reports whether w may be part of a date that has a year or a
// month's name in it.
func dateWord(text string, w word) bool {
	raw := text[w.start:w.end]
	if isNumber(w) {
		return len(raw) == 4 || (w.end < len(text) && text[w.end] == '/')
	}
	return month(raw) != ""
}
