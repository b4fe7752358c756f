package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

// mcpSession runs `icm args...`, writes the JSON-RPC lines to its stdin
// and keeps stdin open until the answer with id 2 arrives (a client that
// hangs up first gets its calls cancelled). It returns every stdout line
// decoded by id, failing if any line is not an MCP frame.
func mcpSession(t *testing.T, args []string, lines ...string) map[float64]map[string]any {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- Main(t.Context(), args, inR, outW, &errb)
		outW.Close()
	}()
	go func() {
		for _, l := range lines {
			io.WriteString(inW, l+"\n")
		}
	}()
	frames := map[float64]map[string]any{}
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var f map[string]any
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil || f["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not an MCP frame: %q", sc.Text())
		}
		id, _ := f["id"].(float64)
		frames[id] = f
		if id == 2 {
			inW.Close()
		}
	}
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	return frames
}

const (
	initFrame   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func callFrame(id int, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

func resultText(t *testing.T, f map[string]any) (string, bool) {
	t.Helper()
	res, ok := f["result"].(map[string]any)
	if !ok {
		t.Fatalf("frame has no result: %v", f)
	}
	var sb strings.Builder
	for _, c := range res["content"].([]any) {
		sb.WriteString(c.(map[string]any)["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return sb.String(), isErr
}

func TestMCPCommandsOverStdio(t *testing.T) {
	fake := fakesearx.New(t, nil)
	site := sites.New(t)
	tests := []struct {
		name    string
		args    []string
		call    string
		isError bool
		want    string
	}{
		{"search", []string{"mcp", "search", "--searxng", fake.URL}, callFrame(2, "search", map[string]any{"query": "go", "max_results": 2}), false, "[2] Result 2 for go"},
		{"browser on an allowed site", []string{"mcp", "browser", "--no-cache", "--allow-host", site.Host()}, callFrame(2, "fetch_structure", map[string]any{"url": site.Page(sites.PathNested)}), false, "h4 Ollama settings"},
		{"browser refuses loopback by default", []string{"mcp", "browser", "--no-cache"}, callFrame(2, "fetch_snippet", map[string]any{"url": site.Page(sites.PathNested)}), true, "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := site.Total()
			frames := mcpSession(t, tt.args, initFrame, initialized, tt.call)
			if len(frames) != 2 || frames[1] == nil || frames[2] == nil {
				t.Fatalf("frames %v, want the answers to initialize and the call", frames)
			}
			text, isErr := resultText(t, frames[2])
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Fatalf("isError=%v text=%q; want isError=%v containing %q", isErr, text, tt.isError, tt.want)
			}
			if tt.isError && site.Total() != before {
				t.Fatalf("a refused fetch reached the site")
			}
		})
	}
}

func TestMCPBrowserFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "browser", "--allow-host", "http://x/"},
		{"mcp", "browser", "--backend", "lynx"},
		{"mcp", "browser", "--backend", "camofox"},
	} {
		_, errOut, code := runICM(t, args...)
		if code == 0 || !strings.Contains(errOut, "icm:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
