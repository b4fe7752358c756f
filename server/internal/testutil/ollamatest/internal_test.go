package ollamatest

import (
	"strings"
	"testing"
)

func TestPieces(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Hello big world", []string{"Hello", " big", " world"}},
		{"  lead and trail  ", []string{"  lead", " and", " trail", "  "}},
		{"a\n\nb", []string{"a", "\n\nb"}},
		{"héllo wörld", []string{"héllo", " wörld"}},
	}
	for _, tt := range tests {
		got := pieces(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("pieces(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Join(got, "") != tt.in {
			t.Errorf("pieces(%q) lose text", tt.in)
		}
	}
}

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

func TestPosition(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\"")
	tests := []struct {
		off  int64
		want string
	}{{0, "1:1"}, {1, "1:2"}, {2, "2:1"}, {4, "2:3"}, {int64(len(data)), "3:6"}, {-5, "1:1"}, {999, "3:6"}}
	for _, tt := range tests {
		if got := position(data, tt.off); got != tt.want {
			t.Errorf("position(%d) = %s, want %s", tt.off, got, tt.want)
		}
	}
}
