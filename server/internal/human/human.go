// Package human is icm's one vocabulary for figures a person reads:
// durations, counts, token figures, sizes, times and failures among
// many. The CLI and the language server write them with it, and the
// server sends the words to the extension, which words itself only what
// the server never saw (extension/src/format.ts, passing the same table,
// testdata/table.json, which docs/vocabulary.md shows), so "3.1 s",
// "4,472 tokens" and "20:06" read the same wherever they appear.
//
// The rules, in short: one decimal under ten of a unit and whole numbers
// above it (3.1 s, 12 s, 1.4 KB, 14 KB, ~1.2k tokens, ~12k tokens);
// exact counts in full with a comma between thousands (4,472), estimates
// with a tilde (~819 tokens); times on a 24-hour clock, with the date
// only when it is not today and the year only when it is not this year.
package human

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a wall time: "850 ms", "3.1 s", "12 s", "2 min 5 s",
// "1 h 4 min". A negative duration reads as "0 ms".
func Duration(d time.Duration) string {
	ms := math.Round(float64(d) / float64(time.Millisecond))
	switch {
	case ms <= 0:
		return "0 ms"
	case ms < 1000:
		return fmt.Sprintf("%d ms", int64(ms))
	}
	tenths := math.Round(ms / 100)
	if tenths < 100 {
		return fmt.Sprintf("%.1f s", tenths/10)
	}
	s := int64(math.Round(ms / 1000))
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%d min", s/60)
		}
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	m := int64(math.Round(float64(s) / 60))
	if m%60 == 0 {
		return fmt.Sprintf("%d h", m/60)
	}
	return fmt.Sprintf("%d h %d min", m/60, m%60)
}

// Count is an exact number with a comma between thousands: "4,472".
func Count(n int) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Plural is a count and its noun, the noun with an s unless it is one:
// "1 case", "3 cases", "1,204 items".
func Plural(n int, noun string) string {
	return PluralOf(n, noun, noun+"s")
}

// PluralOf is Plural for a noun whose plural is not its s form.
func PluralOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + many
}

// Tokens is an exact token figure: "1 token", "4,472 tokens".
func Tokens(n int) string { return Plural(n, "token") }

// Failed is how many of some things failed, the noun's plural following
// the whole: "1 of 1 tool call failed", "2 of 5 tool calls failed". It is
// the one way every face tells failures among many (tool calls, Verify
// checks, items), so "every tool call failed (1 of 1)" and "(1 of 1 tool
// calls failed)" are not two more ways to say the same.
func Failed(n, of int, noun string) string {
	return Count(n) + " of " + Plural(of, noun) + " failed"
}

// InOut is a model's tokens read and written: "4,504 tokens in / 312 out".
func InOut(in, out int) string { return Tokens(in) + " in / " + Count(out) + " out" }

// Prefill is what a model call's prompt cost before its answer: the
// tokens the server computed and those it reused from its cache, and
// whether the server said so or icm predicted it: "148 new, 1,741
// reused (predicted)".
func Prefill(prompt, reused int, measured bool) string {
	how := "predicted"
	if measured {
		how = "measured"
	}
	return Count(max(prompt-reused, 0)) + " new, " + Count(reused) + " reused (" + how + ")"
}

// PrefillLeast is the prompt tokens a stage's calls computed against the
// least they could have (the first prompt whole, then each later one's
// own tokens): "4,174 new, the least 2,434 (1.71×)".
func PrefillLeast(computed, least int) string {
	if least <= 0 {
		return Count(computed) + " new"
	}
	return Count(computed) + " new, the least " + Count(least) + " (" + strconv.FormatFloat(float64(computed)/float64(least), 'f', 2, 64) + "×)"
}

// Estimate is an estimated token figure: "~819 tokens", "~1.2k tokens",
// "~12k tokens". The tilde marks every figure icm did not count exactly.
func Estimate(n int) string { return "~" + Approx(n) + " tokens" }

// Approx is an estimated figure without its unit: "819", "1.2k", "12k".
func Approx(n int) string {
	if n < 1000 {
		return strconv.Itoa(max(n, 0))
	}
	return tenthsOrWhole(float64(n)/1000) + "k"
}

// Size is a number of bytes: "812 B", "1.4 KB", "14 KB", "5.2 MB",
// "1.3 GB" (powers of 1,000, as model servers count them).
func Size(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", max(n, 0))
	}
	v := float64(n)
	for _, unit := range []string{"KB", "MB", "GB"} {
		v /= 1000
		if math.Round(v*10)/10 < 1000 || unit == "GB" {
			return tenthsOrWhole(v) + " " + unit
		}
	}
	return "" // not reached
}

// Rate is how fast a model wrote: n tokens over d, "8.5 tok/s",
// "42 tok/s", "1,250 tok/s". It is "" when d is under a tenth of a
// second, too short to be a measure (a canned answer's is a fraction of
// a millisecond, which read as "176353 tok/s"), or when nothing was
// written.
func Rate(n int, d time.Duration) string {
	if n <= 0 || d < 100*time.Millisecond {
		return ""
	}
	v := float64(n) / d.Seconds()
	if math.Round(v*10)/10 < 10 {
		return tenthsOrWhole(v) + " tok/s"
	}
	return Count(int(math.Round(v))) + " tok/s"
}

// tenthsOrWhole is v with one decimal under ten, whole above: "1.2",
// "12". A value that rounds up to ten reads as "10".
func tenthsOrWhole(v float64) string {
	if r := math.Round(v*10) / 10; r < 10 {
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
}

// Time is when something happened, to the minute, in t's location: "20:06"
// today, "Nov 28 20:06" earlier this year, "Nov 28 2025 20:06" before.
// now says what today is (in the same location).
func Time(t, now time.Time) string { return day(t, now) + t.Format("15:04") }

// Moment is Time to the second, for details where runs a minute apart
// must read apart: "20:06:19", "Nov 28 20:06:19".
func Moment(t, now time.Time) string { return day(t, now) + t.Format("15:04:05") }

// day is the date part of Time and Moment, with its space: "" today.
func day(t, now time.Time) string {
	now = now.In(t.Location())
	switch {
	case t.Year() == now.Year() && t.YearDay() == now.YearDay():
		return ""
	case t.Year() == now.Year():
		return t.Format("Jan 2 ")
	}
	return t.Format("Jan 2 2006 ")
}
