package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// promptText gets a prompt and returns its one user message's text.
func promptText(t *testing.T, c *mcpClient, name string, args map[string]any) string {
	t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	res := c.result("prompts/get", params)
	msgs, _ := res["messages"].([]any)
	if len(msgs) != 1 {
		t.Fatalf("prompt %s has %d messages, want 1: %v", name, len(msgs), res)
	}
	m := msgs[0].(map[string]any)
	content, _ := m["content"].(map[string]any)
	text, _ := content["text"].(string)
	if m["role"] != "user" || text == "" {
		t.Fatalf("prompt %s: %v", name, m)
	}
	return text
}

// TestEachStageHasAPromptThatHandsItOver: every stage has a prompt whose
// text is the stage's exact context (the system and user text probe
// gives), the context id to hand in, the files to write, and the review
// gate to stop at. A For each item's prompt holds that item's context
// and says the whole output is handed in; a Script stage's says to run
// it instead.
func TestEachStageHasAPromptThatHandsItOver(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	scope := filepath.Join(dir, "pipeline", "01-scope", "CONTEXT.md")
	src, err := os.ReadFile(scope)
	if err != nil {
		t.Fatal(err)
	}
	gate := "- Every objective starts with a verb.\n- No objective needs a GPU."
	if err := os.WriteFile(scope, append(src, []byte("\n## Review Gate\n"+gate+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	outline := filepath.Join(dir, "pipeline", "03-outline", "output", "outline.md")
	if err := os.WriteFile(outline, []byte("# Outline\n\n## Install\nGet Ollama.\n\n## First prompt\nAsk a model.\n\n## Compare\nTwo models.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := filepath.Join(dir, "pipeline", "05-build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(build, "CONTEXT.md"), []byte("# Stage: 05-build\n\n## Script\n```\necho built > output/site.txt\n```\n\n## Outputs\n- site.txt -> output/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := agentVars(t)
	c := startMCP(t, dir, vars, "prompter", nil, "mcp", "workspace")
	if got := names(c.result("prompts/list", map[string]any{}), "prompts"); !sameSet(got, []string{"01-scope", "02-research", "03-outline", "04-draft", "05-build"}) {
		t.Fatalf("prompts = %v, want one per stage", got)
	}

	probe := func(args ...string) probeJSON {
		out, errOut, code := runAsUser(t, dir, vars, append([]string{"probe", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("icm probe %v (exit %d): %s", args, code, errOut)
		}
		return decodeProbe(t, out)
	}
	p := probe("01-scope")
	text := promptText(t, c, "01-scope", nil)
	for _, want := range []string{
		`context_id "` + p.ContextID + `"`,
		"- output/objectives.md\n",
		"call request_review and stop",
		"Do not approve it yourself",
		gate,
		"# System text\n\n" + strings.TrimRight(p.System, "\n") + "\n",
		"# User text\n\n" + strings.TrimRight(p.User, "\n") + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("01-scope's prompt lacks %q:\n%s", want, text)
		}
	}

	whole, item := probe("04-draft"), probe("04-draft", "--item", "2")
	text = promptText(t, c, "04-draft", map[string]any{"item": "2"})
	for _, want := range []string{
		"icm://04-draft/context/2",
		`context_id "` + whole.ContextID + `"`,
		"item 2 of 3",
		"icm://04-draft/context/1",
		"icm://04-draft/context/3",
		"# User text\n\n" + strings.TrimRight(item.User, "\n") + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("04-draft's item 2 prompt lacks %q:\n%s", want, text)
		}
	}
	if item.ContextID == whole.ContextID || strings.Contains(text, item.ContextID) {
		t.Errorf("the item's prompt names the item's context id %s beside the stage's %s, which is the one handed in", item.ContextID, whole.ContextID)
	}
	for _, bad := range []string{"0", "x", "4"} {
		if f := c.request("prompts/get", map[string]any{"name": "04-draft", "arguments": map[string]any{"item": bad}}); f["error"] == nil {
			t.Errorf("item %q was taken: %v", bad, f["result"])
		}
	}

	text = promptText(t, c, "05-build", nil)
	if !strings.Contains(text, "runs a script") || !strings.Contains(text, "run_stage") || strings.Contains(text, "call submit_outputs") {
		t.Errorf("the Script stage's prompt:\n%s", text)
	}
	var uris []string
	for _, r := range c.result("resources/list", map[string]any{})["resources"].([]any) {
		uris = append(uris, r.(map[string]any)["uri"].(string))
	}
	if !slices.Contains(uris, "icm://04-draft/context/3") {
		t.Errorf("the For each stage's items are not listed: %v", uris)
	}
}
