package verify

import (
	"context"
	"strings"
	"testing"
)

func TestURLsAndNormalize(t *testing.T) {
	text := "See <https://Example.org/a/>, [b](http://example.org:80/b#top). And https://example.org/c?x=1. Not: https://"
	got := URLs(text)
	want := []string{"https://Example.org/a/", "http://example.org:80/b#top", "https://example.org/c?x=1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("URLs = %q, want %q", got, want)
	}
	for raw, norm := range map[string]string{
		"https://Example.org/a/":      "https://example.org/a",
		"http://example.org:80/b#top": "http://example.org/b",
		"https://example.org:8443/x":  "https://example.org:8443/x",
		"https://example.org/c?x=1":   "https://example.org/c?x=1",
	} {
		if n := NormalizeURL(raw); n != norm {
			t.Errorf("NormalizeURL(%q) = %q, want %q", raw, n, norm)
		}
	}
}

func TestSourceProvenanceChecks(t *testing.T) {
	dir := t.TempDir()
	out := write(t, dir, "notes.md", "# Notes\n\n## One\n- fact from https://given.example/ref\nSources: https://read.example/page/, https://invented.example/x\n\n## Two\n- fact\nSources:\n- https://read.example/page#intro\n")
	p := NewProvenance(true)
	p.AddTool(`{"url":"https://read.example/page"}`)
	p.AddGiven("the reference at https://given.example/ref")
	run := func(check string, prov *Provenance) []string {
		t.Helper()
		rs := Run(context.Background(), parseChecks(t, check), []Output{out}, Env{Stage: "x", Provenance: prov})
		var msgs []string
		for _, f := range rs[0].Findings {
			msgs = append(msgs, f.Message)
		}
		return msgs
	}
	if got := run("sources", p); len(got) != 1 || !strings.HasPrefix(got[0], "https://invented.example/x was not returned") {
		t.Errorf("sources with provenance: %q", got)
	}
	if got := run("sources", nil); len(got) != 0 {
		t.Errorf("sources without provenance checks the form only: %q", got)
	}
	// sources-from-tools looks at every URL and accepts only tools'.
	got := run("sources-from-tools", p)
	if len(got) != 2 || !strings.Contains(got[0], "given.example") || !strings.Contains(got[1], "invented.example") {
		t.Errorf("sources-from-tools: %q", got)
	}
	if got := run("sources-from-tools", NewProvenance(false)); len(got) != 3 || !strings.Contains(got[0], "this stage has no tools") {
		t.Errorf("sources-from-tools in a stage without tools: %q", got)
	}
	if got := run("sources-from-tools", nil); len(got) != 1 || !strings.Contains(got[0], "run the stage again") {
		t.Errorf("sources-from-tools with no provenance: %q", got)
	}
	// The record keeps it, and reads back the same.
	back := ProvenanceOf(p.Record())
	if !back.Tools || !back.FromTools["https://read.example/page"] || !back.Given["https://given.example/ref"] {
		t.Errorf("round trip: %+v", back)
	}
}
