package ollamatest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// floodStream sends a Flood turn's pieces one chunk at a time through send
// until the count is reached (then reports true so the caller sends its
// done chunk) or the client goes away (false). The chunks are built once:
// a runaway server costs the test nothing but the bytes on the wire.
func floodStream(ctx context.Context, t Turn, chunk []byte, w io.Writer, flush func()) bool {
	for i := 0; t.FloodCount < 1 || i < t.FloodCount; i++ {
		if ctx.Err() != nil {
			return false
		}
		if _, err := w.Write(chunk); err != nil {
			return false
		}
		if i%64 == 0 && flush != nil {
			flush()
		}
	}
	if flush != nil {
		flush()
	}
	return true
}

// floodSingle writes a non-streamed answer whose content is the Flood
// piece repeated: head and tail are the JSON object before and after the
// content string. An endless flood writes until the client hangs up.
func floodSingle(ctx context.Context, w http.ResponseWriter, t Turn, head, tail string) {
	piece, _ := json.Marshal(t.FloodPiece)
	inner := piece[1 : len(piece)-1] // the escaped text without its quotes
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(w, head); err != nil {
		return
	}
	if !floodStream(ctx, t, inner, w, nil) {
		return
	}
	_, _ = io.WriteString(w, tail)
}

// splitAround cuts the encoding of v around the marker string it holds,
// so a flood can be written between the two halves.
func splitAround(v any, marker string) (string, string) {
	b, _ := json.Marshal(v)
	s := string(b)
	qb, _ := json.Marshal(marker)
	q := string(qb)
	i := strings.Index(s, q)
	if i < 0 {
		return s, ""
	}
	return s[:i+1], s[i+len(q)-1:]
}
