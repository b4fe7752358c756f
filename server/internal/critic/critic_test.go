package critic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

const model = "qwen3.5:9b"

func judgment(depth, code, structure, cite int) map[string]any {
	sc := func(n int) map[string]any { return map[string]any{"score": n, "reason": "because"} }
	return map[string]any{
		"scores":             map[string]any{"technical_depth": sc(depth), "code_quality": sc(code), "structure_clarity": sc(structure), "citation_fidelity": sc(cite)},
		"specific_critiques": []string{"Section 2 claims a default port without a source."},
		"required_revisions": []string{"Cite the port."},
	}
}

func scripted(t *testing.T) (*ollamatest.Server, llm.Client) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3", Capabilities: []string{"completion"}}}})
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func TestParseValidatesTheSchema(t *testing.T) {
	good, _ := json.Marshal(judgment(7, 7, 7, 7))
	for _, tc := range []struct {
		name, answer string
		ok           bool
	}{
		{"valid", string(good), true},
		{"not json", "The article is great. 9/10", false},
		{"score out of range", strings.Replace(string(good), `"score":7`, `"score":11`, 1), false},
		{"missing category", `{"scores":{"technical_depth":{"score":1,"reason":"x"}},"specific_critiques":[],"required_revisions":[]}`, false},
		{"model decides", strings.Replace(string(good), `{"required_revisions"`, `{"pass":true,"required_revisions"`, 1), false},
		{"reason missing", strings.Replace(string(good), `"reason":"because"`, `"reason":""`, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.answer)
			if (err == nil) != tc.ok {
				t.Errorf("Parse: %v", err)
			}
		})
	}
}

func TestDecideIsComputedInCode(t *testing.T) {
	th := contract.DefaultThresholds()
	for _, tc := range []struct {
		name    string
		scores  [4]int
		pass    bool
		overall float64
	}{
		{"all good", [4]int{8, 8, 7, 7}, true, 75},
		{"one category low", [4]int{9, 9, 9, 5}, false, 80},
		{"overall low", [4]int{6, 6, 7, 7}, false, 65},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(judgment(tc.scores[0], tc.scores[1], tc.scores[2], tc.scores[3]))
			j, err := Parse(string(raw))
			if err != nil {
				t.Fatal(err)
			}
			v := Decide([]part{{j: j, weight: 1}}, th)
			if v.Pass != tc.pass || v.Overall != tc.overall {
				t.Errorf("pass %v overall %v, want %v %v (%v)", v.Pass, v.Overall, tc.pass, tc.overall, v.Failed)
			}
		})
	}
}

func longArticle(sections, chars int) string {
	var b strings.Builder
	b.WriteString("# Long\n\nIntro.\n")
	for i := 0; i < sections; i++ {
		b.WriteString("\n## Section " + string(rune('A'+i)) + "\n\n" + strings.Repeat("word ", chars/5) + "\n")
	}
	return b.String()
}

func TestChunksCoverTheWholeArticle(t *testing.T) {
	a := longArticle(6, 3000)
	cs := Chunks(a, 7000)
	var joined strings.Builder
	for _, c := range cs {
		if len(c.Text) > 7000 {
			t.Errorf("chunk of %d chars over the limit", len(c.Text))
		}
		joined.WriteString(c.Text)
	}
	if joined.String() != a {
		t.Error("the chunks do not add up to the article")
	}
	if len(cs) != 3 {
		t.Errorf("%d chunks, want 3", len(cs))
	}
	// One section longer than the limit is cut too.
	if cs := Chunks(longArticle(1, 20000), 7000); len(cs) < 3 {
		t.Errorf("a long section became %d chunks", len(cs))
	}
}

func TestJudgeChunksTheWholeArticle(t *testing.T) {
	srv, client := scripted(t)
	// The part holding the last section scores lower on code.
	srv.On(ollamatest.LastUserContains("## Section F")).Reply(ollamatest.JSON(judgment(8, 4, 8, 8)))
	srv.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(judgment(8, 8, 8, 8)))
	c := &Critic{Client: client, Model: model, ChunkChars: 7000}
	v, err := c.Judge(context.Background(), longArticle(6, 3000), contract.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if v.Chunks != 3 || len(reqs) != 3 {
		t.Fatalf("chunks %d, calls %d", v.Chunks, len(reqs))
	}
	if !strings.Contains(reqs[2].LastUser(), "## Section F") || !strings.Contains(reqs[0].LastUser(), "Section F") {
		t.Error("the last part was not judged, or the outline of the whole was missing")
	}
	for _, r := range reqs {
		if len(r.Format) == 0 {
			t.Error("a judging call did not ask for structured output")
		}
	}
	if got := v.Categories["code_quality"].Score; got >= 8 || got <= 4 {
		t.Errorf("code_quality %.1f should mix the parts' scores", got)
	}
}

func TestMalformedAnswerIsRetriedOnceThenReported(t *testing.T) {
	srv, client := scripted(t)
	srv.On(ollamatest.Any()).Reply(ollamatest.Text("Looks good to me!"), ollamatest.JSON(judgment(7, 7, 7, 7)))
	c := &Critic{Client: client, Model: model}
	v, err := c.Judge(context.Background(), "# A\n\n## B\n\ntext\n", contract.DefaultThresholds())
	if err != nil || !v.Pass || len(srv.ChatRequests()) != 2 {
		t.Fatalf("retry: %v %+v %d calls", err, v, len(srv.ChatRequests()))
	}
	if !strings.Contains(srv.ChatRequests()[1].LastUser(), "not valid") {
		t.Error("the retry did not say what was wrong")
	}

	srv2, client2 := scripted(t)
	srv2.On(ollamatest.Any()).Reply(ollamatest.Text("{\"scores\": {}}"))
	c2 := &Critic{Client: client2, Model: model}
	_, err = c2.Judge(context.Background(), "# A\n\n## B\n\ntext\n", contract.DefaultThresholds())
	var inv *InvalidAnswerError
	if err == nil || !strings.Contains(err.Error(), "after one retry") || len(srv2.ChatRequests()) != 2 {
		t.Fatalf("twice malformed: %v, %d calls", err, len(srv2.ChatRequests()))
	}
	_ = inv
}

func TestSendBackOnce(t *testing.T) {
	dir := t.TempDir()
	fb := filepath.Join(dir, "feedback.md")
	os.WriteFile(fb, []byte("No feedback yet.\n"), 0o644)
	fail := &Verdict{Pass: false, Overall: 50, Failed: []string{"overall 50.0 is below 70.0"}, RequiredRevisions: []string{"Add the timeout example."}}
	r, err := SendBack(fb, fail, 1)
	if err != nil || !r.Sent || r.Round != 1 {
		t.Fatalf("first send-back: %+v %v", r, err)
	}
	data, _ := os.ReadFile(fb)
	if !strings.Contains(string(data), "Add the timeout example.") {
		t.Errorf("feedback:\n%s", data)
	}
	r, err = SendBack(fb, fail, 1)
	if err != nil || r.Sent || r.Round != 1 {
		t.Fatalf("second send-back must not happen: %+v %v", r, err)
	}
	if again, _ := os.ReadFile(fb); string(again) != string(data) {
		t.Error("the feedback file changed without a send-back")
	}
	pass := &Verdict{Pass: true}
	if r, _ := SendBack(fb, pass, 3); r.Sent {
		t.Error("a passing article was sent back")
	}
}
