package trust_test

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust"
)

// A model name that names a registry host makes the person's Ollama pull
// from that host when icm pull (the fix icm prints for a missing model)
// asks it to (issue 30, item 8): such a name in config.toml or in a
// contract's Model section is a part, "pulls from HOST"; a name from
// Ollama's own registry is not.
func TestARegistryHostIsAPart(t *testing.T) {
	ws := open(t, wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "models.example.test/ns/model:latest"
[test]
models = ["qwen3:8b", "registry.ollama.ai/library/qwen3:8b", "hf.example.test/someone/tiny"]
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Model
model: http://other.example.test:5000/ns/m

## Process
Write.

## Outputs
- a.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Model
model: someone/model:7b

## Process
Write.

## Outputs
- b.md -> output/
`))
	var got []string
	for _, p := range trust.Of(ws, trust.Options{}) {
		got = append(got, p.String())
	}
	want := []string{
		"pull models.example.test/ns/model:latest, pulls from models.example.test (config.toml [model] name)",
		"pull hf.example.test/someone/tiny, pulls from hf.example.test (config.toml [test] models)",
		"pull http://other.example.test:5000/ns/m, pulls from other.example.test:5000 (pipeline/01-a/CONTEXT.md ## Model)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
