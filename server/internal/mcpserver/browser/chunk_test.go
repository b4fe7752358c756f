package browser

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunk(t *testing.T) {
	var paras []string
	for i := 0; i < 60; i++ {
		paras = append(paras, fmt.Sprintf("Paragraph %d. %s", i, strings.Repeat("word ", 60)))
	}
	long := strings.Join(paras, "\n\n")
	code := "```go\n" + strings.Repeat("fmt.Println(1)\n", 20) + "```"
	tests := []struct {
		name      string
		md        string
		max, over int
		minChunks int
	}{
		{"short page is one chunk", "# T\n\nHello.", 1000, 100, 1},
		{"long page", long, 2000, 200, 9},
		{"code fence kept whole", strings.Repeat("x ", 400) + "\n\n" + code + "\n\n" + strings.Repeat("y ", 400), 1000, 100, 2},
		{"one huge line", strings.Repeat("abcdefghij ", 1000), 1000, 100, 10},
		{"one huge word", strings.Repeat("é", 3000), 1000, 0, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := Chunk(tt.md, tt.max, tt.over)
			if len(chunks) < tt.minChunks {
				t.Fatalf("%d chunks, want at least %d", len(chunks), tt.minChunks)
			}
			for i, c := range chunks {
				if len(c) > tt.max {
					t.Errorf("chunk %d has %d bytes, over %d", i, len(c), tt.max)
				}
				if strings.TrimSpace(c) == "" {
					t.Errorf("chunk %d is empty", i)
				}
				if !utf8.ValidString(c) && utf8.ValidString(tt.md) {
					t.Errorf("chunk %d cuts a character", i)
				}
			}
			all := strings.Join(chunks, "\n\n")
			for _, b := range blocks(tt.md) {
				for _, p := range split(b, tt.max) {
					if !strings.Contains(all, p) {
						t.Fatalf("piece %.40q... is in no chunk", p)
					}
				}
			}
			if strings.Contains(tt.md, "```go") {
				if !strings.Contains(all, code) {
					t.Fatalf("code fence was cut")
				}
			}
		})
	}
}

func TestChunkOverlap(t *testing.T) {
	var paras []string
	for i := 0; i < 20; i++ {
		paras = append(paras, fmt.Sprintf("P%02d %s", i, strings.Repeat("z", 90)))
	}
	chunks := Chunk(strings.Join(paras, "\n\n"), 500, 120)
	if len(chunks) < 3 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i := 1; i < len(chunks); i++ {
		prev := chunks[i-1]
		lastPara := prev[strings.LastIndex(prev, "\n\n")+2:]
		if !strings.HasPrefix(chunks[i], lastPara) {
			t.Errorf("chunk %d does not start with the last paragraph of chunk %d (%q)", i, i-1, lastPara[:3])
		}
	}
}

func FuzzChunk(f *testing.F) {
	f.Add("# A\n\ntext\n\n```\ncode\n```\n\nmore", 50, 10)
	f.Add(strings.Repeat("ü", 100), 7, 3)
	f.Fuzz(func(t *testing.T, md string, max, over int) {
		if max < 4 || max > 10000 {
			return
		}
		for _, c := range Chunk(md, max, over) {
			if len(c) > max {
				t.Fatalf("chunk of %d bytes over %d", len(c), max)
			}
		}
	})
}
