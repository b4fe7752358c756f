package ollamatest

import "testing"

func TestCutToTokens(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"abcdefgh", 2, "abcdefgh"},
		{"abcdefghij", 2, "abcdefgh"},
		{"abcdefghij", 0, ""},
		{"ab€€", 1, "ab"}, // never splits a character: "ab" plus half of '€' would fit 4 bytes
	}
	for _, tt := range tests {
		if got := cutToTokens(tt.in, tt.limit, quarterBytes); got != tt.want {
			t.Errorf("cutToTokens(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct{ in, normal, qualified string }{
		{"tiny", "tiny:latest", "registry.ollama.ai/library/tiny:latest"},
		{"Qwen3:4B", "qwen3:4b", "registry.ollama.ai/library/qwen3:4b"},
		{"org/m", "org/m:latest", "registry.ollama.ai/org/m:latest"},
		{"host:11434/org/m", "host:11434/org/m:latest", "host:11434/org/m:latest"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := normalizeName(tt.in); got != tt.normal {
			t.Errorf("normalizeName(%q) = %q, want %q", tt.in, got, tt.normal)
		}
		if tt.in != "" {
			if got := qualifiedName(tt.in); got != tt.qualified {
				t.Errorf("qualifiedName(%q) = %q, want %q", tt.in, got, tt.qualified)
			}
		}
	}
}

func TestParameterCount(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0.6B", 600000000}, {"135M", 135000000}, {"7b", 7000000000}, {"12", 12}, {"", 0}, {"huge", 0},
	}
	for _, tt := range tests {
		if got := parameterCount(tt.in); got != tt.want {
			t.Errorf("parameterCount(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
