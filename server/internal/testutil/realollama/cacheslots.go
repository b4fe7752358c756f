package realollama

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// CacheLoad is one "loading cache slot" line of a runner's debug log:
// how a call's prompt met the slot the runner gave it. Both runners
// (Ollama's engine and llama.cpp's) write it as a call starts, when the
// server runs with OLLAMA_DEBUG=1.
type CacheLoad struct {
	// Slot is the slot's number; Cache how many tokens it held.
	Slot, Cache int
	// Prompt is the call's prompt tokens, Used how many of them the slot
	// held already (not computed again) and Remaining the rest, which the
	// runner computed.
	Prompt, Used, Remaining int
}

// cacheLoadLine matches the line in slog's text form (v0.17):
// msg="loading cache slot" id=0 cache=0 prompt=1868 used=0 remaining=1868.
var cacheLoadLine = regexp.MustCompile(`msg="loading cache slot" id=(\d+) cache=(\d+) prompt=(\d+) used=(\d+) remaining=(\d+)`)

// CacheLoads reads the server's log for its runners' cache-slot lines,
// in the order the calls started. The server must run with
// OLLAMA_DEBUG=1 (Options.Env); without it the log has none.
func (s *Server) CacheLoads() ([]CacheLoad, error) {
	return readCacheLoads(s.LogPath)
}

func readCacheLoads(path string) ([]CacheLoad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read the server log: %w", err)
	}
	defer f.Close()
	var out []CacheLoad
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		m := cacheLoadLine.FindSubmatch(sc.Bytes())
		if m == nil {
			continue
		}
		n := make([]int, 5)
		for i := range n {
			n[i], _ = strconv.Atoi(string(m[i+1]))
		}
		out = append(out, CacheLoad{Slot: n[0], Cache: n[1], Prompt: n[2], Used: n[3], Remaining: n[4]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("unable to read the server log %s: %w", path, err)
	}
	return out, nil
}
