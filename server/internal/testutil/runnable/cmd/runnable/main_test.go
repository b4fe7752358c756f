package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

const repo = `
-- ws/CLAUDE.md --
# A workspace
-- ws/pipeline/01-draft/CONTEXT.md --
# Stage: 01-draft

## Process
Write a draft.

## Outputs
- draft.md -> output/
`

func TestRunPrintsTheTable(t *testing.T) {
	dir := wstest.Write(t, repo)
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{dir}, &out, &errb); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	for _, want := range []string{"/ws: 1 of 1 stages run", "| 01-draft | ran |", "## Totals: 1 of 1 stages run in 1 workspaces"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := run(context.Background(), []string{"-list", dir}, &out, &errb); err != nil || out.String() != dir+" ws\n" {
		t.Errorf("-list printed %q, %v", out.String(), err)
	}
	if err := run(context.Background(), nil, &out, &errb); err == nil {
		t.Error("no folder named, and no error")
	}
}
