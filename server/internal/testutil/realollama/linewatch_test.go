package realollama

import (
	"bytes"
	"testing"
)

func TestLineWatcher(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   bool
	}{
		{"one write", []string{"x Listening on 127.0.0.1:5 (version 1)\n"}, true},
		{"split across writes", []string{"x Listen", "ing on 127.0", ".0.1:5 (version 1)\n"}, true},
		{"byte by byte", splitBytes("..Listening on 127.0.0.1:5 (v"), true},
		{"longer port", []string{"Listening on 127.0.0.1:50 (v)\n"}, false},
		{"absent", []string{"Listening on 127.0.0.2:5\n", "error\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sink bytes.Buffer
			w := newLineWatcher(&sink, "Listening on 127.0.0.1:5 ")
			var all string
			for _, s := range tt.writes {
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
				all += s
			}
			if sink.String() != all {
				t.Errorf("sink got %q, want %q", sink.String(), all)
			}
			select {
			case <-w.seen:
				if !tt.want {
					t.Error("seen closed, but the needle was not written")
				}
			default:
				if tt.want {
					t.Error("seen not closed, but the needle was written")
				}
			}
		})
	}
}

func splitBytes(s string) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out
}
