package human

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"
)

// table is testdata/table.json, which the extension's tests read too
// (extension/test/unit/format.test.ts): one set of answers for both.
type table struct {
	Duration []struct {
		MS   float64 `json:"ms"`
		Want string  `json:"want"`
	} `json:"duration"`
	Count []struct {
		N    int    `json:"n"`
		Want string `json:"want"`
	} `json:"count"`
	Plural []struct {
		N    int    `json:"n"`
		Noun string `json:"noun"`
		Want string `json:"want"`
	} `json:"plural"`
	Tokens, Estimate []struct {
		N    int    `json:"n"`
		Want string `json:"want"`
	}
	Size []struct {
		N    int64  `json:"n"`
		Want string `json:"want"`
	} `json:"size"`
	Rate []struct {
		N    int     `json:"n"`
		MS   float64 `json:"ms"`
		Want string  `json:"want"`
	} `json:"rate"`
	Time []struct {
		T, Now       time.Time
		Want, Moment string
	} `json:"time"`
	Failed []struct {
		N    int    `json:"n"`
		Of   int    `json:"of"`
		Noun string `json:"noun"`
		Want string `json:"want"`
	} `json:"failed"`
	InOut []struct {
		In   int    `json:"in"`
		Out  int    `json:"out"`
		Want string `json:"want"`
	} `json:"inout"`
	Prefill []struct {
		Prompt, Reused int
		Measured       bool
		Want           string
	} `json:"prefill"`
	PrefillLeast []struct {
		Computed, Least int
		Want            string
	} `json:"prefillleast"`
}

func readTable(t *testing.T) *table {
	t.Helper()
	data, err := os.ReadFile("testdata/table.json")
	if err != nil {
		t.Fatal(err)
	}
	var tb table
	if err := json.Unmarshal(data, &tb); err != nil {
		t.Fatal(err)
	}
	if len(tb.Duration) == 0 || len(tb.Count) == 0 || len(tb.Plural) == 0 || len(tb.Tokens) == 0 ||
		len(tb.Estimate) == 0 || len(tb.Size) == 0 || len(tb.Rate) == 0 || len(tb.Time) == 0 || len(tb.Failed) == 0 || len(tb.InOut) == 0 ||
		len(tb.Prefill) == 0 || len(tb.PrefillLeast) == 0 {
		t.Fatal("the table lost a section")
	}
	return &tb
}

func TestTheSharedTable(t *testing.T) {
	tb := readTable(t)
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	for _, c := range tb.Duration {
		d := time.Duration(c.MS * float64(time.Millisecond))
		check("Duration("+d.String()+")", Duration(d), c.Want)
	}
	for _, c := range tb.Count {
		check("Count", Count(c.N), c.Want)
	}
	for _, c := range tb.Plural {
		check("Plural", Plural(c.N, c.Noun), c.Want)
	}
	for _, c := range tb.Tokens {
		check("Tokens", Tokens(c.N), c.Want)
	}
	for _, c := range tb.Estimate {
		check("Estimate", Estimate(c.N), c.Want)
	}
	for _, c := range tb.Size {
		check("Size", Size(c.N), c.Want)
	}
	for _, c := range tb.Rate {
		d := time.Duration(c.MS * float64(time.Millisecond))
		check("Rate("+strconv.Itoa(c.N)+", "+d.String()+")", Rate(c.N, d), c.Want)
	}
	for _, c := range tb.Failed {
		check("Failed", Failed(c.N, c.Of, c.Noun), c.Want)
	}
	for _, c := range tb.InOut {
		check("InOut", InOut(c.In, c.Out), c.Want)
	}
	for _, c := range tb.Prefill {
		check("Prefill", Prefill(c.Prompt, c.Reused, c.Measured), c.Want)
	}
	for _, c := range tb.PrefillLeast {
		check("PrefillLeast", PrefillLeast(c.Computed, c.Least), c.Want)
	}
	for _, c := range tb.Time {
		tt, now := c.T.UTC(), c.Now.UTC()
		check("Time("+c.T.String()+")", Time(tt, now), c.Want)
		check("Moment("+c.T.String()+")", Moment(tt, now), c.Moment)
	}
}

// A time and the day it is compared with are taken in the time's own
// location: a run at 23:30 in Berlin is today there even when it is
// already tomorrow in UTC.
func TestTimeComparesDaysInTheTimesLocation(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	run := time.Date(2026, 3, 1, 23, 30, 0, 0, berlin)
	now := time.Date(2026, 3, 1, 22, 45, 0, 0, time.UTC) // 23:45 in Berlin
	if got := Time(run, now); got != "23:30" {
		t.Errorf("Time = %q, want 23:30", got)
	}
}
