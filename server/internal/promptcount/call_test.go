package promptcount_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/tools"
)

func TestCallOf(t *testing.T) {
	k := contract.Parse("CONTEXT.md", []byte(`# Stage: 02-research

Research.

## Tools
search-server: search
browser-server: summarize, extract

## Process
Do it.

## Outputs
- notes.md -> output/
`))
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	list := func(ctx context.Context, server string) ([]report.ToolInfo, error) {
		switch server {
		case "search-server":
			return []report.ToolInfo{
				{Server: server, Name: "search", Exposed: tools.ExposedName(server, "search"), Description: "Search the web.", InputSchema: schema},
				{Server: server, Name: "other", Exposed: tools.ExposedName(server, "other"), Description: "Not allowed.", InputSchema: schema},
			}, nil
		}
		return nil, errors.New("it did not start")
	}
	think := false
	call := promptcount.CallOf(context.Background(), config.Model{Name: "qwen3:8b", Think: &think}, k, "", list)
	if call.Model != "qwen3:8b" || call.Think == nil || *call.Think {
		t.Errorf("model %q think %v", call.Model, call.Think)
	}
	if len(call.Tools) != 1 || call.Tools[0].Name != "search-server_search" || call.Tools[0].Description != "Search the web." {
		t.Errorf("tools %+v", call.Tools)
	}
	if len(call.Unlisted) != 1 || !strings.HasPrefix(call.Unlisted[0], "browser-server: it did not start") {
		t.Errorf("unlisted %q", call.Unlisted)
	}
	if c := promptcount.CallOf(context.Background(), config.Model{Name: "qwen3:8b"}, k, "llama3.2", nil); c.Model != "llama3.2" || len(c.Tools) != 0 || len(c.Unlisted) != 2 {
		t.Errorf("override and no lister: %+v", c)
	}
}
