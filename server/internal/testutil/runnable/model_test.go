package runnable

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/writeout"
)

const outputs = "- [slug]-brief.md -> output/\n- log-YYYY-MM-DD.md -> output/\n- summary.md -> output/\n- output/site/\n"

func parseOutputs(t *testing.T, outputs string) *contract.Contract {
	t.Helper()
	c := contract.Parse("/ws/stages/02-plan/CONTEXT.md", []byte("# Stage: 02-plan\n\n## Process\nPlan.\n\n## Outputs\n"+outputs))
	for _, f := range c.Findings {
		if f.Severity == contract.Error {
			t.Fatalf("contract: %s", f.Message)
		}
	}
	return c
}

// writeTool is the write tool as icm offers it for c.
func writeTool(c *contract.Contract) api.Tool {
	var params api.ToolFunctionParameters
	if err := json.Unmarshal(writeout.ToolParameters, &params); err != nil {
		panic(err)
	}
	return api.Tool{Type: "function", Function: api.ToolFunction{Name: writeout.ToolName,
		Description: writeout.ToolDescription(writeout.Targets(c)), Parameters: params}}
}

// converse plays icm's side of the write tool against the model until it
// answers in text: each call is kept by the same writeout.Set a run
// uses, and answered with its status. It returns the set and the answer.
func converse(t *testing.T, m *model, c *contract.Contract, tools []api.Tool, answer func(name string, args map[string]any) string) (*writeout.Set, string) {
	t.Helper()
	return converseWith(t, m, writeout.NewSet("stages/02-plan", c, 0), tools, answer)
}

// converseWith is converse with the set a run would make.
func converseWith(t *testing.T, m *model, set *writeout.Set, tools []api.Tool, answer func(name string, args map[string]any) string) (*writeout.Set, string) {
	t.Helper()
	req := &ollamatest.Request{ChatRequest: api.ChatRequest{Tools: tools,
		Messages: []api.Message{{Role: "user", Content: "Do the stage."}}}}
	for range maxTurns + 1 {
		turn := m.reply(req)
		if len(turn.ToolCalls) == 0 {
			return set, turn.Content
		}
		msg := api.Message{Role: "assistant"}
		var results []api.Message
		for _, call := range turn.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			for k, v := range call.Arguments {
				args.Set(k, v)
			}
			msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{Function: api.ToolCallFunction{Name: call.Name, Arguments: args}})
			text := ""
			if call.Name == writeout.ToolName {
				p, _ := call.Arguments["path"].(string)
				content, _ := call.Arguments["content"].(string)
				rel, err := set.Accept(p, content)
				if err != nil {
					text = "Not written: " + err.Error()
				} else {
					text = set.Status(rel, len(content))
				}
			} else {
				text = answer(call.Name, call.Arguments)
			}
			results = append(results, api.Message{Role: "tool", ToolName: call.Name, Content: text})
		}
		req.Messages = append(append(req.Messages, msg), results...)
	}
	t.Fatal("the model never stopped calling tools")
	return nil, ""
}

// The model writes a file for every output the write tool lists, filling
// each placeholder and date and giving a folder one file, and stops once
// icm says every output has one.
func TestModelWritesWhatTheToolLists(t *testing.T) {
	c := parseOutputs(t, outputs)
	set, answer := converse(t, &model{body: "## Findings\n"}, c, []api.Tool{writeTool(c)}, nil)
	if m := set.Missing(); len(m) > 0 {
		t.Errorf("outputs left without a file: %v", m)
	}
	if set.Len() != 4 || answer != "Wrote every output." {
		t.Errorf("wrote %d files, answered %q", set.Len(), answer)
	}
	if got := string(set.Files()["output/demo-brief.md"]); !strings.Contains(got, "## Findings") {
		t.Errorf("the brief holds %q, not the sections later stages read", got)
	}
}

// After a write, the model writes what icm's answer says is still to
// write, and only that.
func TestModelFollowsStillToWrite(t *testing.T) {
	c := parseOutputs(t, outputs)
	set := writeout.NewSet("stages/02-plan", c, 0)
	for _, p := range []string{"output/a-brief.md", "output/summary.md"} {
		if _, err := set.Accept(p, "x"); err != nil {
			t.Fatal(err)
		}
	}
	args := api.NewToolCallFunctionArguments()
	args.Set("path", "output/summary.md")
	req := &ollamatest.Request{ChatRequest: api.ChatRequest{Tools: []api.Tool{writeTool(c)}, Messages: []api.Message{
		{Role: "user", Content: "Do the stage."},
		{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: writeout.ToolName, Arguments: args}}}},
		{Role: "tool", ToolName: writeout.ToolName, Content: set.Status("output/summary.md", 1)},
	}}}
	var got []string
	for _, call := range (&model{}).reply(req).ToolCalls {
		got = append(got, call.Arguments["path"].(string))
	}
	if strings.Join(got, " ") != "output/log-2026-12-01.md output/site/notes.md" {
		t.Errorf("wrote %v, want the two outputs still to write", got)
	}
}

// A path icm keeps refusing is tried twice, then the model says it could
// not write it and leaves the verdict to icm.
func TestModelGivesUpOnARefusedPath(t *testing.T) {
	c := parseOutputs(t, "| Artifact | Location |\n|---|---|\n| Map | `../../../elsewhere/map.md` |\n| Readme | `output/readme.md` |\n")
	set := writeout.NewSet("stages/02-plan", c, 0).Contain(func(string) error { return errors.New("it lies outside the workspace") })
	set, answer := converseWith(t, &model{}, set, []api.Tool{writeTool(c)}, nil)
	if set.Len() != 1 || answer == "" {
		t.Errorf("kept %d files, answered %q", set.Len(), answer)
	}
}

// A read tool is called first, once for each file it offers; then the
// model writes.
func TestModelReadsWhatTheReadToolOffers(t *testing.T) {
	c := parseOutputs(t, "- notes.md -> output/\n- plan.md -> output/\n")
	props := api.NewToolPropertiesMap()
	props.Set("path", api.ToolProperty{Type: api.PropertyType{"string"}, Enum: []any{"references/a.md", "stages/01-x/output/b.md"}})
	read := api.Tool{Type: "function", Function: api.ToolFunction{Name: "read_file", Description: "Read a file the contract mentions.",
		Parameters: api.ToolFunctionParameters{Type: "object", Properties: props}}}
	var reads []string
	set, _ := converse(t, &model{}, c, []api.Tool{read, writeTool(c)}, func(name string, args map[string]any) string {
		reads = append(reads, args["path"].(string))
		return "the file"
	})
	if strings.Join(reads, " ") != "references/a.md stages/01-x/output/b.md" {
		t.Errorf("read %v", reads)
	}
	if len(set.Missing()) > 0 {
		t.Errorf("after reading, outputs left: %v", set.Missing())
	}
}

// Without a read tool's enum, the files its description names are read.
func TestModelReadsTheFilesADescriptionNames(t *testing.T) {
	read := api.Tool{Type: "function", Function: api.ToolFunction{Name: "read",
		Description: "Read one of the files the contract mentions: `references/style.md`, ../01-a/output/brief.md, notes.txt.",
		Parameters:  api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}}}
	read.Function.Parameters.Properties.Set("path", api.ToolProperty{Type: api.PropertyType{"string"}})
	req := &ollamatest.Request{ChatRequest: api.ChatRequest{Tools: []api.Tool{read}, Messages: []api.Message{{Role: "user", Content: "Go."}}}}
	var got []string
	for _, call := range (&model{}).reply(req).ToolCalls {
		got = append(got, call.Arguments["path"].(string))
	}
	if strings.Join(got, " ") != "references/style.md ../01-a/output/brief.md notes.txt" {
		t.Errorf("read %v", got)
	}
}

// With neither tool, the answer is the text of the output.
func TestModelAnswersInTextWithoutTools(t *testing.T) {
	turn := (&model{body: "## Notes\n"}).reply(&ollamatest.Request{ChatRequest: api.ChatRequest{Messages: []api.Message{{Role: "user", Content: "Go."}}}})
	if len(turn.ToolCalls) > 0 || !strings.Contains(turn.Content, "## Notes") {
		t.Errorf("turn = %+v", turn)
	}
}

// A contract that names no output file: the model writes the one file
// the write tool gives as its example, and stops.
func TestModelWritesTheExampleWhenNoFileIsNamed(t *testing.T) {
	c := parseOutputs(t, "- A review report with findings\n")
	set, answer := converse(t, &model{}, c, []api.Tool{writeTool(c)}, nil)
	if set.Len() != 1 || len(set.Undeclared()) != 1 || answer == "" {
		t.Errorf("kept %v, answered %q", set.Undeclared(), answer)
	}
}
