package urls

import (
	"testing"
)

func TestFindKeepsWhereEachURLIs(t *testing.T) {
	text := "See <https://Example.org/a/>, [b](http://example.org:80/b#top). And https://example.org/c?x=1. Not: https://"
	got := Find(text)
	want := []string{"https://Example.org/a/", "http://example.org:80/b#top", "https://example.org/c?x=1"}
	if len(got) != len(want) {
		t.Fatalf("Find = %+v, want %q", got, want)
	}
	for i, s := range got {
		if s.Raw != want[i] || text[s.Start:s.End] != s.Raw {
			t.Errorf("span %d = %+v (text there %q), want %q", i, s, text[s.Start:s.End], want[i])
		}
	}
}

func TestNormalize(t *testing.T) {
	for raw, norm := range map[string]string{
		"https://Example.org/a/":      "https://example.org/a",
		"http://example.org:80/b#top": "http://example.org/b",
		"https://example.org:443/":    "https://example.org",
		"https://example.org:8443/x":  "https://example.org:8443/x",
		"https://example.org/c?x=1":   "https://example.org/c?x=1",
		"HTTPS://%zz/":                "https://%zz",
	} {
		if n := Normalize(raw); n != norm {
			t.Errorf("Normalize(%q) = %q, want %q", raw, n, norm)
		}
	}
}
