package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// agentVars is an environment with the test's config folder and no
// model server: an agent's run needs none.
func agentVars(t *testing.T) map[string]string {
	return map[string]string{"ICM_CONFIG_DIR": trusttest.ConfigDir(t), "OLLAMA_HOST": "http://127.0.0.1:9"}
}

// trustedCopy is a copy of a shipped workspace its person trusts (in the
// test's config folder), as `icm trust` would record it.
func trustedCopy(t *testing.T, name string) string {
	t.Helper()
	dir := wstest.Copy(t, name)
	trusttest.Grant(t, dir)
	return dir
}

// probeJSON is what `icm probe --json` decodes to, as far as these tests
// read it.
type probeJSON struct {
	Stage     string `json:"stage"`
	System    string `json:"system"`
	User      string `json:"user"`
	ContextID string `json:"context_id"`
	Count     *struct {
		First struct {
			Tokens int    `json:"tokens"`
			Method string `json:"method"`
		} `json:"first_call"`
	} `json:"count"`
}

func decodeProbe(t *testing.T, text string) probeJSON {
	t.Helper()
	var p probeJSON
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		t.Fatalf("the context is not the probe's JSON: %v\n%s", err, text)
	}
	return p
}

// traceEvents reads a run's trace.
func traceEvents(t *testing.T, dir, runID string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "history", runID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("trace line: %v", err)
		}
		out = append(out, ev)
	}
	return out
}

// readRecord reads a stage's run record.
func readRecord(t *testing.T, stageDir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(stageDir, ".icm", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestAgentRunsAStageThroughTheWorkspaceServer is a coding agent's whole
// session over stdio: it probes a stage, hands in a wrongly named output
// (refused, naming the declared one, nothing written), then the right
// one (recorded as the agent's, Verify run, the gate reached); it asks
// for review and, with a client that cannot ask its person, hears the
// stage awaits them; it cannot approve. The person approves from the
// command line, and the next stage's context now holds the approved
// output. The trace holds the agent's run with the context it was given.
func TestAgentRunsAStageThroughTheWorkspaceServer(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	vars := agentVars(t)
	c := startMCP(t, dir, vars, "Test Agent", nil, "mcp", "workspace")
	scope := filepath.Join(dir, "pipeline", "01-scope")

	text, isErr := c.tool("probe", map[string]any{"stage": "01-scope"})
	if isErr {
		t.Fatalf("probe: %s", text)
	}
	probe := decodeProbe(t, text)
	if !strings.HasPrefix(probe.ContextID, "ctx-") || !strings.Contains(probe.User, "learning") {
		t.Fatalf("probe gave no context id or no context:\n%s", text)
	}

	text, isErr = c.tool("submit_outputs", map[string]any{"stage": "01-scope", "context_id": probe.ContextID,
		"files": []any{map[string]any{"path": "output/goals.md", "content": "1. Install Ollama.\n"}}})
	if !isErr || !strings.Contains(text, "output/objectives.md") || !strings.Contains(text, "nothing was recorded") {
		t.Fatalf("a wrongly named output was not refused naming the declared one (isError %v):\n%s", isErr, text)
	}
	for _, p := range []string{filepath.Join(scope, "output", "goals.md"), filepath.Join(scope, "output", "objectives.md"), filepath.Join(scope, ".icm", "run.json"), filepath.Join(dir, "history")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused hand-in left %s", p)
		}
	}

	objectives := "1. Install Ollama and pull a small model.\n2. Run a first prompt from the command line.\n3. Compare two models on one task.\n4. Write a prompt file the course reuses.\n"
	text, isErr = c.tool("submit_outputs", map[string]any{"stage": "01-scope", "context_id": probe.ContextID,
		"files": []any{map[string]any{"path": "output/objectives.md", "content": objectives}}})
	if isErr {
		t.Fatalf("the right output was refused:\n%s", text)
	}
	for _, want := range []string{"handed in by agent:test-agent", "Wrote pipeline/01-scope/output/objectives.md", "Verify: 2 of 2 checks pass", "awaiting review"} {
		if !strings.Contains(text, want) {
			t.Errorf("submit_outputs lacks %q:\n%s", want, text)
		}
	}
	if got, err := os.ReadFile(filepath.Join(scope, "output", "objectives.md")); err != nil || string(got) != objectives {
		t.Fatalf("the output on disk is %q (%v)", got, err)
	}
	rec := readRecord(t, scope)
	if rec["agent"] != "test-agent" || rec["model"] != "agent:test-agent" || rec["context_id"] != probe.ContextID || rec["status"] != "done" {
		t.Fatalf("the run record does not say an agent ran it from that context: %v", rec)
	}
	if v, _ := rec["verify"].([]any); len(v) != 2 {
		t.Errorf("the record holds %d Verify results, want 2", len(v))
	}

	// The trace: the agent's run, with the context it was given.
	runID := rec["run_id"].(string)
	var agentEvent map[string]any
	var kinds []string
	for _, ev := range traceEvents(t, dir, runID) {
		kinds = append(kinds, ev["kind"].(string))
		if ev["kind"] == "model" {
			agentEvent = ev["model"].(map[string]any)
		}
	}
	if agentEvent == nil || agentEvent["model"] != "agent:test-agent" || agentEvent["purpose"] != "agent" {
		t.Fatalf("the trace has no agent run: %v", agentEvent)
	}
	sent, _ := agentEvent["sent"].([]any)
	if len(sent) != 2 || sent[0].(map[string]any)["content"] != probe.System || sent[1].(map[string]any)["content"] != probe.User {
		t.Errorf("the trace does not hold the context the agent was given")
	}
	if !slices.Contains(kinds, "verify") || !slices.Contains(kinds, "gate") || !slices.Contains(kinds, "stage-end") {
		t.Errorf("trace kinds %v: want verify, stage-end and gate", kinds)
	}

	text, _ = c.tool("request_review", map[string]any{"stage": "01-scope", "summary": "Four objectives."})
	if !strings.Contains(text, "Awaiting review") || !strings.Contains(text, "icm approve 01-scope") {
		t.Errorf("a client without elicitation was not told the stage awaits review:\n%s", text)
	}
	if tools := names(c.result("tools/list", map[string]any{}), "tools"); slices.Contains(tools, "approve_stage") {
		t.Fatalf("an approve tool is offered without the person's settings: %v", tools)
	}
	if f := c.request("tools/call", map[string]any{"name": "approve_stage", "arguments": map[string]any{"stage": "01-scope"}}); f["error"] == nil {
		if res, _ := f["result"].(map[string]any); res["isError"] != true {
			t.Fatalf("approve_stage was answered: %v", f)
		}
	}
	if out, _, _ := runAsUser(t, dir, vars, "status"); !strings.Contains(out, "awaiting review") || !strings.Contains(out, "written by agent:test-agent") {
		t.Errorf("status does not show the agent's run awaiting review:\n%s", out)
	}

	// The person approves; the next stage reads the approved output.
	if out, errOut, code := runAsUser(t, dir, vars, "approve", "01-scope"); code != 0 {
		t.Fatalf("approve: %s%s", out, errOut)
	}
	next := decodeProbe(t, c.readResource("icm://02-research/context"))
	if !strings.Contains(next.User, "Compare two models on one task.") {
		t.Errorf("02-research's context lacks the approved output:\n%s", next.User)
	}
}

// handInScope probes 01-scope and hands in a good objectives.md.
func handInScope(t *testing.T, c *mcpClient) string {
	t.Helper()
	text, isErr := c.tool("probe", map[string]any{"stage": "01-scope"})
	if isErr {
		t.Fatalf("probe: %s", text)
	}
	id := decodeProbe(t, text).ContextID
	text, isErr = c.tool("submit_outputs", map[string]any{"stage": "01-scope", "context_id": id,
		"files": []any{map[string]any{"path": "output/objectives.md", "content": "1. Install Ollama.\n2. Run a model.\n3. Compare two models.\n4. Keep a prompt file.\n"}}})
	if isErr {
		t.Fatalf("submit_outputs: %s", text)
	}
	return id
}

// TestReviewRequestAsksThePersonWhereTheClientCan: a client that offers
// elicitation gets the review request, and the person's answer is kept
// as a note; it approves nothing. A declined request is told as such.
func TestReviewRequestAsksThePersonWhereTheClientCan(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	vars := agentVars(t)
	var asked []map[string]any
	c := startMCP(t, dir, vars, "asker", map[string]any{"elicitation": map[string]any{}}, "mcp", "workspace")
	answer := map[string]any{"action": "accept", "content": map[string]any{"verdict": "needs changes", "note": "Fewer, sharper objectives."}}
	var mu sync.Mutex
	c.answer = func(method string, params map[string]any) any {
		mu.Lock()
		defer mu.Unlock()
		if method == "elicitation/create" {
			asked = append(asked, params)
		}
		return answer
	}
	handInScope(t, c)
	text, isErr := c.tool("request_review", map[string]any{"stage": "01-scope", "summary": "Four objectives."})
	if isErr || !strings.Contains(text, "wants changes") || !strings.Contains(text, "Fewer, sharper objectives.") || !strings.Contains(text, "not an approval") {
		t.Fatalf("request_review (isError %v):\n%s", isErr, text)
	}
	mu.Lock()
	if len(asked) != 1 || !strings.Contains(asked[0]["message"].(string), "agent:asker asks you to review stage 01-scope. Four objectives.") {
		t.Fatalf("the person was asked %v", asked)
	}
	mu.Unlock()
	var outs struct {
		Status     string `json:"status"`
		ReviewNote struct {
			Verdict, Note, Action string
			Asker                 string `json:"asked_by"`
		} `json:"review_note"`
	}
	if err := json.Unmarshal([]byte(c.readResource("icm://01-scope/outputs")), &outs); err != nil {
		t.Fatal(err)
	}
	if outs.Status != "awaiting-review" || outs.ReviewNote.Verdict != "needs changes" || outs.ReviewNote.Note != "Fewer, sharper objectives." || outs.ReviewNote.Asker != "agent:asker" {
		t.Errorf("the answer is not kept as a note beside a stage still awaiting review: %+v", outs)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline", "01-scope", ".icm", "approval.json")); err == nil {
		t.Error("a review answer approved the stage")
	}
	if tools := names(c.result("tools/list", map[string]any{}), "tools"); slices.Contains(tools, "approve_stage") {
		t.Errorf("a client that can ask its person is offered an approve tool without the person's settings: %v", tools)
	}

	mu.Lock()
	answer = map[string]any{"action": "decline"}
	mu.Unlock()
	text, _ = c.tool("request_review", map[string]any{"stage": "01-scope"})
	if !strings.Contains(text, "did not answer (decline)") || !strings.Contains(text, "still awaits their review") {
		t.Errorf("a declined request:\n%s", text)
	}
	text, _ = c.tool("request_review", map[string]any{"stage": "02-research"})
	if !strings.Contains(text, "nothing for a person to review") {
		t.Errorf("a pending stage was put up for review:\n%s", text)
	}
}

// TestAgentsApproveOnlyWhereThePersonAllowsIt: with approve = true in
// the person's own settings the approve tool exists, and its approval
// is recorded and shown as an agent's; settings inside the workspace
// are refused.
func TestAgentsApproveOnlyWhereThePersonAllowsIt(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	vars := agentVars(t)
	if err := os.WriteFile(filepath.Join(vars["ICM_CONFIG_DIR"], "settings.toml"), []byte("[agents]\napprove = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startMCP(t, dir, vars, "helper", nil, "mcp", "workspace")
	if tools := names(c.result("tools/list", map[string]any{}), "tools"); !slices.Contains(tools, "approve_stage") {
		t.Fatalf("no approve tool with the person's permission: %v", tools)
	}
	handInScope(t, c)
	text, isErr := c.tool("approve_stage", map[string]any{"stage": "01-scope"})
	if isErr || !strings.Contains(text, "Approved 01-scope as agent:helper") {
		t.Fatalf("approve_stage (isError %v): %s", isErr, text)
	}
	data, err := os.ReadFile(filepath.Join(dir, "pipeline", "01-scope", ".icm", "approval.json"))
	if err != nil || !strings.Contains(string(data), `"by": "agent:helper"`) {
		t.Fatalf("approval.json = %s (%v)", data, err)
	}
	if out, _, _ := runAsUser(t, dir, vars, "status"); !strings.Contains(out, "approved by agent:helper, not by a person") {
		t.Errorf("status does not show the agent's approval apart:\n%s", out)
	}

	// Never forced: not past failing Verify checks, nor a stale stage.
	research := filepath.Join(dir, "pipeline", "02-research")
	probe := decodeProbe(t, c.readResource("icm://02-research/context"))
	text, isErr = c.tool("submit_outputs", map[string]any{"stage": "02-research", "context_id": probe.ContextID,
		"files": []any{map[string]any{"path": "output/notes.md", "content": "# Notes\n\nTODO: write the notes.\n"}}})
	if isErr || !strings.Contains(text, "fail") {
		t.Fatalf("a hand-in failing Verify (isError %v): %s", isErr, text)
	}
	if text, isErr := c.tool("approve_stage", map[string]any{"stage": "02-research"}); !isErr || !strings.Contains(strings.ToLower(text), "verify") {
		t.Errorf("an agent approved past failing Verify checks (isError %v): %s", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(research, ".icm", "approval.json")); err == nil {
		t.Error("02-research was approved with failing checks")
	}
	if err := os.WriteFile(filepath.Join(dir, "pipeline", "01-scope", "input.md"), []byte("Another course.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, isErr := c.tool("approve_stage", map[string]any{"stage": "01-scope"}); !isErr || !strings.Contains(text, "stale") {
		t.Errorf("an agent approved a stale stage (isError %v): %s", isErr, text)
	}

	inside := filepath.Join(dir, ".vscode", "icm")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inside, "settings.toml"), []byte("[agents]\napprove = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runAsUser(t, dir, map[string]string{"ICM_CONFIG_DIR": inside}, "mcp", "workspace")
	if code == 0 || !strings.Contains(errOut, "inside the workspace") {
		t.Errorf("settings inside the workspace were taken (exit %d): %s", code, errOut)
	}
}

// TestRestrictedServesReadOnly: --restricted (an editor in Restricted
// Mode) serves even a trusted workspace read-only: contexts are read,
// nothing is run, handed in or approved.
func TestRestrictedServesReadOnly(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	c := startMCP(t, dir, agentVars(t), "a", nil, "mcp", "workspace", "--restricted")
	text, isErr := c.tool("probe", map[string]any{"stage": "01-scope"})
	if isErr {
		t.Fatalf("probe refused read-only: %s", text)
	}
	id := decodeProbe(t, text).ContextID
	text, isErr = c.tool("submit_outputs", map[string]any{"stage": "01-scope", "context_id": id,
		"files": []any{map[string]any{"path": "output/objectives.md", "content": "1. x\n"}}})
	if !isErr || !strings.Contains(text, "Restricted Mode") {
		t.Fatalf("a read-only workspace took outputs (isError %v): %s", isErr, text)
	}
	text, isErr = c.tool("run_stage", map[string]any{"stage": "01-scope"})
	if !isErr || !strings.Contains(text, "Restricted Mode") {
		t.Fatalf("a read-only workspace ran (isError %v): %s", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline", "01-scope", "output", "objectives.md")); err == nil {
		t.Error("an output was written")
	}
	// A stage awaiting review, asked about read-only: the person's answer
	// is not kept, and the agent is told so.
	handInScope(t, startMCP(t, dir, agentVars(t), "a", nil, "mcp", "workspace"))
	ro := startMCP(t, dir, agentVars(t), "a", map[string]any{"elicitation": map[string]any{}}, "mcp", "workspace", "--restricted")
	ro.answer = func(string, map[string]any) any {
		return map[string]any{"action": "accept", "content": map[string]any{"verdict": "needs changes", "note": "Shorter."}}
	}
	text, _ = ro.tool("request_review", map[string]any{"stage": "01-scope"})
	if !strings.Contains(text, "not kept") || strings.Contains(text, "a note for the record") {
		t.Errorf("read-only, the answer was said to be kept:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline", "01-scope", ".icm", "review-note.json")); err == nil {
		t.Error("a read-only server kept a review note")
	}
}

// TestTrustMatrixWorkspaceServer: the workspace server on a workspace
// nobody trusts, which names tool servers, a Script stage, a run: check,
// a model server and a key: every resource and prompt reads, every tool
// that reads or asks answers, every tool that acts is refused for want
// of trust (workspaceToolTrust classifies each), and nothing the
// workspace names acts.
func TestTrustMatrixWorkspaceServer(t *testing.T) {
	cfg := trusttest.ConfigDir(t)
	h := trusttest.NewHostile(t, trusttest.HostileOptions{MCP: []string{fixtureBin}})
	allowed := filepath.Join(cfg, "settings.toml")
	if err := os.WriteFile(allowed, []byte("[agents]\napprove = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"ICM_CONFIG_DIR": cfg, trusttest.SecretEnv: trusttest.Secret, "OLLAMA_HOST": "127.0.0.1:1", "OLLAMA_MODELS": t.TempDir()}
	c := startMCP(t, h.Dir, vars, "hostile-test", map[string]any{"elicitation": map[string]any{}}, "mcp", "workspace")
	c.answer = func(string, map[string]any) any {
		return map[string]any{"action": "accept", "content": map[string]any{"verdict": "looks right"}}
	}
	res := c.result("resources/list", map[string]any{})
	for _, r := range res["resources"].([]any) {
		uri := r.(map[string]any)["uri"].(string)
		if f := c.request("resources/read", map[string]any{"uri": uri}); f["error"] != nil {
			t.Errorf("%s could not be read untrusted: %v", uri, f["error"])
		}
	}
	for _, p := range names(c.result("prompts/list", map[string]any{}), "prompts") {
		c.result("prompts/get", map[string]any{"name": p})
	}
	callEveryTool(t, c, "not trusted")
	h.AssertQuiet(t, "the workspace server")
	if _, err := os.Stat(filepath.Join(h.Dir, "pipeline", "01-a", "output", "a.md")); err == nil {
		t.Error("an untrusted workspace took an output")
	}
}

// TestContextResourceIsWhatProbePrints: a stage's context resource is
// byte for byte what `icm probe --json` prints for the same stage (and
// For each item), and with the model's files in the local models folder
// its count is the exact one, made with the model's own tokenizer.
func TestContextResourceIsWhatProbePrints(t *testing.T) {
	models := t.TempDir()
	if err := realollama.LayOut(models, "qwen3.5:9b", realollama.ModelSpec{}, ""); err != nil {
		t.Fatal(err)
	}
	f, err := ollamamodel.Find([]string{models}, "qwen3.5:9b")
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 8192, Digest: f.Digest}}, AllowUnscripted: true})
	dir := wstest.Copy(t, "course-research")
	outline := filepath.Join(dir, "pipeline", "03-outline", "output", "outline.md")
	if err := os.WriteFile(outline, []byte("# Outline\n\n## Install\nGet Ollama.\n\n## First prompt\nAsk a model.\n\n## Compare\nTwo models.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := agentVars(t)
	vars["OLLAMA_HOST"], vars["OLLAMA_MODELS"] = srv.URL(), models
	c := startMCP(t, dir, vars, "reader", nil, "mcp", "workspace")
	for _, tc := range []struct {
		uri  string
		args []string
	}{
		{"icm://01-scope/context", []string{"probe", "--json", "01-scope"}},
		{"icm://03-outline/context", []string{"probe", "--json", "03-outline"}},
		{"icm://04-draft/context/2", []string{"probe", "--json", "04-draft", "--item", "2"}},
	} {
		got := c.readResource(tc.uri)
		want, errOut, _ := runAsUser(t, dir, vars, tc.args...)
		if want == "" {
			t.Fatalf("%v printed nothing: %s", tc.args, errOut)
		}
		if got != want {
			t.Errorf("%s differs from icm %s:\n--- resource\n%s\n--- probe\n%s", tc.uri, strings.Join(tc.args, " "), got, want)
		}
	}
	p := decodeProbe(t, c.readResource("icm://01-scope/context"))
	if p.Count == nil || p.Count.First.Method != "exact" || p.Count.First.Tokens == 0 {
		t.Errorf("the count is not exact where the model's files are local: %+v", p.Count)
	}
}

// TestSubscribedStageGoesStale: a client subscribed to a stage's outputs
// (and the next stage's context) is told when an input changes under
// them and the stage goes stale; a stage made while serving is listed.
func TestSubscribedStageGoesStale(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	vars := agentVars(t)
	c := startMCP(t, dir, vars, "watcher", nil, "mcp", "workspace", "--poll", "50ms")
	handInScope(t, c)
	if _, errOut, code := runAsUser(t, dir, vars, "approve", "01-scope"); code != 0 {
		t.Fatal(errOut)
	}
	for _, uri := range []string{"icm://01-scope/outputs", "icm://02-research/context"} {
		c.result("resources/subscribe", map[string]any{"uri": uri})
	}
	if err := os.WriteFile(filepath.Join(dir, "pipeline", "01-scope", "input.md"), []byte("A course on running models at home.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notification("notifications/resources/updated", func(p map[string]any) bool { return p["uri"] == "icm://01-scope/outputs" }, 30*time.Second)
	var outs struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(c.readResource("icm://01-scope/outputs")), &outs); err != nil {
		t.Fatal(err)
	}
	if outs.Status != "stale" || !strings.Contains(outs.Reason, "input.md") {
		t.Errorf("after the notification the stage reads %+v, want stale because of input.md", outs)
	}

	// The approved output changes: the next stage's context changes.
	changed := c.mark()
	if err := os.WriteFile(filepath.Join(dir, "pipeline", "01-scope", "output", "objectives.md"), []byte("1. Only this.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notificationAfter(changed, "notifications/resources/updated", func(p map[string]any) bool { return p["uri"] == "icm://02-research/context" }, 30*time.Second)

	// Earlier changes (the items of 02-research come from objectives.md)
	// already changed the lists once: wait for the changes after this one.
	// Each list says so itself, so a client re-lists what it was told of.
	before := c.mark()
	stage := filepath.Join(dir, "pipeline", "05-review")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, "CONTEXT.md"), []byte("# Stage: 05-review\n\n## Process\nReview the course.\n\n## Outputs\n- review.md -> output/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notificationAfter(before, "notifications/resources/list_changed", nil, 30*time.Second)
	if uris := names(c.result("resources/list", map[string]any{}), "resources"); !slices.Contains(uris, "05-review context") {
		t.Errorf("the new stage is not listed: %v", uris)
	}
	c.notificationAfter(before, "notifications/prompts/list_changed", nil, 30*time.Second)
	if prompts := names(c.result("prompts/list", map[string]any{}), "prompts"); !slices.Contains(prompts, "05-review") {
		t.Errorf("the new stage has no prompt: %v", prompts)
	}
}

// TestRunStageRunsIcmsModelWithProgress: run_stage runs a stage with
// icm's own model, as icm run does, and a call that asks for progress
// gets the run's steps as notifications/progress.
func TestRunStageRunsIcmsModelWithProgress(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.On(ollamatest.LastUserContains("learning")).Reply(ollamatest.Text("1. Install Ollama.\n2. Run a model.\n3. Compare two.\n4. Keep a prompt.\n"))
	dir := trustedCopy(t, "course-research")
	vars := agentVars(t)
	vars["OLLAMA_HOST"] = srv.URL()
	c := startMCP(t, dir, vars, "runner", nil, "mcp", "workspace")
	res := c.result("tools/call", map[string]any{"name": "run_stage", "arguments": map[string]any{"stage": "01-scope"}, "_meta": map[string]any{"progressToken": "run-1"}})
	if res["isError"] == true {
		t.Fatalf("run_stage: %v", res)
	}
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(text, "of 01-scope: done") || strings.Contains(text, "handed in") || !strings.Contains(text, "awaiting review") {
		t.Errorf("run_stage said:\n%s", text)
	}
	c.notification("notifications/progress", func(p map[string]any) bool {
		return p["progressToken"] == "run-1" && strings.Contains(fmt.Sprint(p["message"]), "01-scope")
	}, 10*time.Second)
	if rec := readRecord(t, filepath.Join(dir, "pipeline", "01-scope")); rec["model"] != "qwen3.5:9b" || rec["agent"] != nil {
		t.Errorf("icm's own run is recorded as %v / agent %v", rec["model"], rec["agent"])
	}
}

// TestAgentRunReadsLikeAModelRun: icm history shows an agent's run as a
// model call of agent:NAME, whose request is the context it was given.
func TestAgentRunReadsLikeAModelRun(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	vars := agentVars(t)
	c := startMCP(t, dir, vars, "historian", nil, "mcp", "workspace")
	handInScope(t, c)
	runID := readRecord(t, filepath.Join(dir, "pipeline", "01-scope"))["run_id"].(string)
	out, errOut, code := runAsUser(t, dir, vars, "history", "--run", runID)
	if code != 0 || !strings.Contains(out, "model agent:historian  handed in over MCP from a context of ~") {
		t.Fatalf("icm history --run (exit %d):\n%s%s", code, out, errOut)
	}
	// The stage's line says who handed it in, not the 0 tokens no model
	// of icm's read.
	if !regexp.MustCompile(`(?m)^└─ 01-scope  done  \d+(\.\d)? (ms|s)  handed in by agent:historian over MCP$`).MatchString(out) {
		t.Errorf("the stage's line does not say the agent handed it in:\n%s", out)
	}
	out, errOut, code = runAsUser(t, dir, vars, "history", "--run", runID, "--stage", "01-scope", "--call", "1")
	if code != 0 || !strings.Contains(out, "learning") || !strings.Contains(out, "Handed in over MCP by agent:historian") {
		t.Errorf("the call's request is not the context (exit %d):\n%s%s", code, out, errOut)
	}
}

// TestServingAFolderOfWorkspaces: a folder holding several workspaces is
// served whole; URIs and prompts name the workspace, and a tool needs it.
func TestServingAFolderOfWorkspaces(t *testing.T) {
	parent := t.TempDir()
	for _, name := range []string{"course-research", "course-rust"} {
		if err := os.Rename(wstest.Copy(t, name), filepath.Join(parent, name)); err != nil {
			t.Fatal(err)
		}
	}
	c := startMCP(t, parent, agentVars(t), "folder", nil, "mcp", "workspace", parent)
	var uris []string
	for _, r := range c.result("resources/list", map[string]any{})["resources"].([]any) {
		uris = append(uris, r.(map[string]any)["uri"].(string))
	}
	for _, want := range []string{"icm://course-research/01-scope/context", "icm://course-rust/01-scope/context"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources lack %s: %v", want, uris)
		}
	}
	if prompts := names(c.result("prompts/list", map[string]any{}), "prompts"); !slices.Contains(prompts, "course-rust/02-research") {
		t.Errorf("prompts: %v", prompts)
	}
	if text, isErr := c.tool("status", nil); !isErr || !strings.Contains(text, "course-research, course-rust") {
		t.Errorf("a tool without its workspace (isError %v): %s", isErr, text)
	}
	text, isErr := c.tool("status", map[string]any{"workspace": "course-rust"})
	if isErr || !strings.Contains(text, "Workspace course-rust") {
		t.Errorf("status of course-rust (isError %v): %s", isErr, text)
	}
	rust := decodeProbe(t, c.readResource("icm://course-rust/01-scope/context"))
	research := decodeProbe(t, c.readResource("icm://course-research/01-scope/context"))
	if rust.ContextID == research.ContextID || rust.User == research.User {
		t.Error("the two workspaces' contexts are the same")
	}
}

// TestFindingTheWorkspacesOfAFolder: a folder holding workspaces is
// served as those workspaces even inside a repository whose root has an
// agents' file of its own (AGENTS.md, which also marks a workspace); a
// folder inside a workspace serves that workspace; hidden folders,
// node_modules and workspaces deeper than four levels (the one depth
// every front end discovers to) are not looked into; a folder with no workspace in or around it is refused, naming
// it.
func TestFindingTheWorkspacesOfAFolder(t *testing.T) {
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte("# How to work in this repository\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	place := func(name, where string) string {
		dst := filepath.Join(repo, where)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(wstest.Copy(t, name), dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	place("course-research", "courses/research")
	place("course-rust", "courses/more/rust")
	place("course-rust", "courses/.cache/rust")
	place("course-rust", "courses/node_modules/rust")
	place("course-rust", "courses/a/b/c/d/rust")
	served := func(args ...string) string {
		c := startMCP(t, repo, agentVars(t), "finder", nil, append([]string{"mcp", "workspace"}, args...)...)
		text, _ := c.tool("status", nil)
		return text
	}
	if text := served(filepath.Join(repo, "courses")); !strings.Contains(text, "serves 2 workspaces (rust, research)") {
		t.Errorf("the folder of workspaces (a tool without its workspace):\n%s", text)
	}
	if text := served(filepath.Join(repo, "courses", "research", "pipeline")); !strings.Contains(text, "Workspace research") {
		t.Errorf("a folder inside a workspace:\n%s", text)
	}
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runAsUser(t, repo, agentVars(t), "mcp", "workspace", empty)
	if code == 0 || !strings.Contains(errOut, empty+" holds no ICM workspace") {
		t.Errorf("a folder with none (exit %d): %s", code, errOut)
	}
}

// TestAForEachOfManyItemsIsListedWithinBounds: a For each stage lists
// one context resource per item up to a bound, so a list of thousands
// does not make every resources/list that long; every item can still be
// read, and its prompt had.
func TestAForEachOfManyItemsIsListedWithinBounds(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	var outline strings.Builder
	outline.WriteString("# Outline\n")
	const n = 1500
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&outline, "\n## Part %d\nAbout part %d.\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "pipeline", "03-outline", "output", "outline.md"), []byte(outline.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startMCP(t, dir, agentVars(t), "lister", nil, "mcp", "workspace")
	var items []string
	for _, r := range c.result("resources/list", map[string]any{})["resources"].([]any) {
		if u := r.(map[string]any)["uri"].(string); strings.HasPrefix(u, "icm://04-draft/context/") {
			items = append(items, u)
		}
	}
	if len(items) == 0 || len(items) >= n || !slices.Contains(items, "icm://04-draft/context/1") {
		t.Fatalf("%d of %d items listed (want some, within a bound)", len(items), n)
	}
	last := fmt.Sprintf("icm://04-draft/context/%d", n)
	if p := decodeProbe(t, c.readResource(last)); !strings.Contains(p.User, fmt.Sprintf("About part %d.", n)) {
		t.Errorf("%s (not listed) does not read as its item:\n%s", last, p.User)
	}
	text := promptText(t, c, "04-draft", map[string]any{"item": fmt.Sprint(n)})
	if !strings.Contains(text, fmt.Sprintf("item %d of %d", n, n)) {
		t.Errorf("the last item's prompt:\n%.400s", text)
	}
}
