package tokens

import (
	"strings"
	"testing"
)

func TestHeuristic(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello", 1},
		{"hello world", 2},
		{"Hello, world.", 4},
		{"internationalization", 2}, // 20 letters
		{"12345", 2},                // digits in groups of three
		{"a\n\n\nb", 3},             // a run of line breaks is one token
		{"    indented", 2},         // four columns of indentation, one word
		{"日本語", 3},                  // CJK: one per character
		{"Жук", 2},                  // other scripts: a token per three bytes
		{"- Layer 4 (working): input.md", 10},
	}
	for _, tt := range tests {
		if got := Default.Count(tt.text); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestBytesAndFamily(t *testing.T) {
	if Bytes.Count("héllo") != 6 {
		t.Error("Bytes counts bytes")
	}
	if ForFamily("llama", true) != Bytes || ForFamily("qwen3", false) != Default {
		t.Error("ForFamily picks by byte-level vocabulary")
	}
}

func TestProseRatio(t *testing.T) {
	// On plain English prose the estimate should sit near the 1.1-1.4
	// tokens per word that BPE vocabularies of 100k+ entries show.
	prose := strings.Repeat("Read the course idea and the audience profile, then write four to six learning objectives for a short course. ", 20)
	words := len(strings.Fields(prose))
	ratio := float64(Estimate(prose)) / float64(words)
	if ratio < 1.0 || ratio > 1.5 {
		t.Errorf("tokens per word = %.2f, want 1.0..1.5", ratio)
	}
}

func BenchmarkEstimate(b *testing.B) {
	text := strings.Repeat("Draft the one module shown below, and only that module. 日本語 12345\n", 200)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Default.Count(text)
	}
}

func TestCountLabels(t *testing.T) {
	tests := []struct {
		c    Count
		want string
	}{
		{Count{Method: Exact}, "exact (model tokenizer)"},
		{Count{Method: Server}, "server /tokenize"},
		{Count{Method: Calibrated, Runs: 3}, "calibrated from 3 runs"},
		{Count{Method: Calibrated, Runs: 1}, "calibrated from 1 run"},
		{Count{Method: Estimated}, "estimated"},
		{Count{}, "estimated"},
	}
	for _, tt := range tests {
		if got := tt.c.Label(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
	sum := Count{Tokens: 10, Method: Exact, Tokenizer: "t"}.Add(Count{Tokens: 5, Method: Estimated})
	if sum.Tokens != 15 || sum.Method != Estimated || sum.Known() {
		t.Errorf("exact + estimated = %+v, want 15 estimated", sum)
	}
	if s := (Count{}).Add(Count{Tokens: 3, Method: Exact}); s.Tokens != 3 || !s.Known() {
		t.Errorf("zero + exact = %+v", s)
	}
}
