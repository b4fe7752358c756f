package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/tokens"
)

func TestLadder(t *testing.T) {
	cases := []struct{ in, want int }{
		{0, 2048}, {1, 2048}, {2048, 2048}, {2049, 3072}, {3072, 3072}, {3073, 4096},
		{4097, 6144}, {6145, 8192}, {8193, 12288}, {12289, 16384}, {100000, 131072},
	}
	for _, c := range cases {
		if got := ladder(c.in); got != c.want {
			t.Errorf("ladder(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// byteModel answers /api/show for a byte-level model of context length ctxLen.
func byteModel(ctxLen int) func(http.ResponseWriter, string) {
	return func(w http.ResponseWriter, model string) {
		writeJSON(w, 200, showResponse("llama", ctxLen, 260, 64))
	}
}

func TestChatSizesNumCtxFromThePrompt(t *testing.T) {
	// With a byte-level model the estimate is exact: reply header 4 +
	// message markers 4 + "user" 4 + the content's bytes.
	cases := []struct {
		name      string
		modelMax  int
		bytes     int
		maxOutput int
		numCtx    int // the request's own window, 0 = sized
		want      int // num_ctx sent; 0 = refused before the call
	}{
		{"small prompt, smallest window", 32768, 1000, 1000, 0, 2048},
		{"fits 4096", 32768, 3000, 1000, 0, 4096},
		{"next ladder step", 32768, 5000, 1000, 0, 6144},
		{"answer room grows the window", 32768, 1000, 8000, 0, 12288},
		{"capped by the model", 4096, 3500, 1000, 0, 4096},
		{"over the model even with minimal answer room", 4096, 3900, 1000, 0, 0},
		{"request's window used as is", 32768, 1000, 1000, 5000, 5000},
		{"request's window too small", 32768, 1000, 1000, 1200, 0},
		{"request's window capped by the model", 4096, 1000, 1000, 9000, 4096},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.show = byteModel(c.modelMax)
			o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(c.maxOutput))
			resp, err := o.Chat(context.Background(), ChatRequest{
				Stage: "01-scope", Messages: userMsg(strings.Repeat("a", c.bytes)),
				Options: Options{NumCtx: c.numCtx},
			})
			calls := f.chatCalls()
			if c.want == 0 {
				if KindOf(err) != KindPromptTooLong {
					t.Fatalf("err = %v, want a prompt-too-long error", err)
				}
				if len(calls) != 0 {
					t.Fatalf("%d chat requests were made; a refused prompt must make none", len(calls))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 1 {
				t.Fatalf("%d chat requests, want 1", len(calls))
			}
			if got := numOpt(calls[0].Options, "num_ctx"); got != c.want {
				t.Errorf("num_ctx = %d, want %d", got, c.want)
			}
			if got := numOpt(calls[0].Options, "num_predict"); got != c.maxOutput {
				t.Errorf("num_predict = %d, want %d", got, c.maxOutput)
			}
			if resp.NumCtx != c.want || resp.PromptEstimate != c.bytes+12 {
				t.Errorf("response NumCtx %d estimate %d, want %d and %d", resp.NumCtx, resp.PromptEstimate, c.want, c.bytes+12)
			}
			if calls[0].Truncate == nil || *calls[0].Truncate || calls[0].Shift == nil || *calls[0].Shift {
				t.Errorf("truncate/shift must both be sent as false, got %v/%v", calls[0].Truncate, calls[0].Shift)
			}
			if calls[0].Stream == nil || *calls[0].Stream {
				t.Errorf("a call without OnDelta must send stream=false")
			}
		})
	}
}

func TestChatHeuristicWindowKeepsMargin(t *testing.T) {
	// A non-byte model: the estimate is the heuristic's, and the window
	// keeps 15% over it besides the answer's room.
	prose := strings.Repeat("The loader assembles each stage's context from its contract. ", 150)
	f := newFake(t)
	f.count = tokens.Default.Count
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(512))
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg(prose)})
	if err != nil {
		t.Fatal(err)
	}
	est := estimatePrompt(tokens.Default, userMsg(prose), nil).total
	if resp.PromptEstimate != est {
		t.Errorf("estimate %d, want the heuristic's %d", resp.PromptEstimate, est)
	}
	got := numOpt(f.chatCalls()[0].Options, "num_ctx")
	if got < est+est*15/100+512 || got != ladder(got) {
		t.Errorf("num_ctx %d: want a ladder step of at least %d", got, est+est*15/100+512)
	}
}

func TestChatWindowNeverShrinksForAModel(t *testing.T) {
	f := newFake(t)
	f.show = byteModel(32768)
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(1000))
	for _, n := range []int{5000, 100, 9000, 100} {
		if _, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg(strings.Repeat("b", n))}); err != nil {
			t.Fatal(err)
		}
	}
	var got []int
	for _, c := range f.chatCalls() {
		got = append(got, numOpt(c.Options, "num_ctx"))
	}
	want := []int{6144, 6144, 12288, 12288}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("num_ctx sequence %v, want %v (a smaller window would reload the model)", got, want)
		}
	}
}

func TestPromptTooLongSaysWhatToDo(t *testing.T) {
	f := newFake(t)
	f.show = byteModel(4096)
	o := newTestClient(t, f.srv.URL, newFakeTime())
	_, err := o.Chat(context.Background(), ChatRequest{Stage: "02-draft", Messages: userMsg(strings.Repeat("c", 5000))})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindPromptTooLong {
		t.Fatalf("err = %v, want KindPromptTooLong", err)
	}
	if e.Estimate != 5012 || e.Window != 4096 {
		t.Errorf("estimate %d window %d, want 5012 and 4096", e.Estimate, e.Window)
	}
	for _, s := range []string{"stage 02-draft", "5012", "4096", "bytes"} {
		if !strings.Contains(e.Error(), s) {
			t.Errorf("message %q does not mention %q", e.Error(), s)
		}
	}
	for _, s := range []string{"shorten", "section-scope", "larger window"} {
		if !strings.Contains(e.Hint, s) {
			t.Errorf("hint %q does not mention %q", e.Hint, s)
		}
	}
	if len(f.chatCalls()) != 0 {
		t.Errorf("a refused prompt made %d chat requests", len(f.chatCalls()))
	}
}

func TestEstimateCountsToolsAndToolCalls(t *testing.T) {
	msgs := []Message{
		{Role: RoleSystem, Content: "sys"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "read", Arguments: map[string]any{"path": "a.md"}}}},
		{Role: RoleTool, ToolName: "read", Content: "contents"},
	}
	plain := estimatePrompt(tokens.Bytes, msgs[:1], nil)
	withCalls := estimatePrompt(tokens.Bytes, msgs, nil)
	withTools := estimatePrompt(tokens.Bytes, msgs, []byte(`[{"type":"function"}]`))
	if !(plain.total < withCalls.total && withCalls.total < withTools.total) {
		t.Errorf("estimates %d, %d, %d must grow with tool calls and tool schemas", plain.total, withCalls.total, withTools.total)
	}
	if want := withCalls.total + toolsTokens + len(`[{"type":"function"}]`); withTools.total != want {
		t.Errorf("tools add %d, want %d", withTools.total-withCalls.total, want-withCalls.total)
	}
	// The text part leaves the JSON out: arguments and schemas.
	if args := len(`{"path":"a.md"}`); withCalls.text != withCalls.total-args || withTools.text != withCalls.text+toolsTokens {
		t.Errorf("text estimates %d and %d, want %d and %d", withCalls.text, withTools.text, withCalls.total-args, withCalls.text+toolsTokens)
	}
}

func TestWasCut(t *testing.T) {
	p := windowPlan{estimate: 3000, textEstimate: 1000, window: 4096}
	cases := []struct {
		evaluated int
		ratio     float64
		want      bool
	}{
		{0, 0.5, false},    // unknown
		{4096, 0.5, true},  // filled the window
		{5000, 0.5, true},  // more than the window
		{1100, 0.5, false}, // estimate low: fine
		{700, 0.5, false},  // within the estimator's error
		{400, 0.5, true},   // far below: cut
		{400, 0, false},    // low-count check off
	}
	for _, c := range cases {
		if got := p.wasCut(c.evaluated, c.ratio); got != c.want {
			t.Errorf("wasCut(%d, %v) = %v, want %v", c.evaluated, c.ratio, got, c.want)
		}
	}
	small := windowPlan{estimate: 100, textEstimate: 100, window: 2048}
	if small.wasCut(40, 0.5) {
		t.Error("a small prompt within the slack must not count as cut")
	}
}

func TestModelInfoFromShow(t *testing.T) {
	cases := []struct {
		name      string
		show      map[string]any
		ctx       int
		family    string
		byteLevel bool
	}{
		{"llama 3", showResponse("llama", 131072, 128256, 4096), 131072, "llama", false},
		{"byte-level tiny", showResponse("llama", 2048, 262, 64), 2048, "llama", true},
		{"qwen", showResponse("qwen3", 40960, 151936, 4096), 40960, "qwen3", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sr api.ShowResponse
			mustRoundTrip(t, c.show, &sr)
			info := modelInfoFrom("m", &sr)
			if info.ContextLength != c.ctx || info.Family != c.family || info.ByteLevel != c.byteLevel {
				t.Errorf("got %+v, want ctx %d family %s byteLevel %v", info, c.ctx, c.family, c.byteLevel)
			}
		})
	}
	// vocab_size in model_info wins over the tensor shape.
	s := showResponse("llama", 2048, 128256, 4096)
	s["model_info"].(map[string]any)["llama.vocab_size"] = 259
	var sr api.ShowResponse
	mustRoundTrip(t, s, &sr)
	if !modelInfoFrom("m", &sr).ByteLevel {
		t.Error("llama.vocab_size 259 should mark the model byte-level")
	}
}

// TestAnEstimateRefusesOnlyBeyondItsMargin: a prompt counted by the
// heuristic is refused before the call only when even the least it can
// really be (its estimate less the estimator's error) leaves no room for
// an answer in the model's window. Within the margin the call is made
// with the model's whole window; the server, sent truncate=false, says
// for certain whether it fits. A refusal by an estimate that may be 15%
// high was a guess standing in the author's way.
func TestAnEstimateRefusesOnlyBeyondItsMargin(t *testing.T) {
	const modelMax = 4096
	prose := func(words int) string { return strings.Repeat("context ", words) }
	for _, c := range []struct {
		name  string
		words int
		sent  bool
	}{
		{"over by the estimate, within its margin", 4100, true},
		{"over beyond the margin", 5200, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.show = func(w http.ResponseWriter, model string) {
				writeJSON(w, 200, showResponse("llama", modelMax, 128256, 4096))
			}
			// The model's tokenizer counts this text 10% below the
			// heuristic: the prompt really fits.
			f.count = func(s string) int { return tokens.Default.Count(s) * 9 / 10 }
			o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(512))
			msgs := userMsg(prose(c.words))
			est := estimatePrompt(tokens.Default, msgs, nil).total
			if est+tokens.MinAnswerRoom <= modelMax {
				t.Fatalf("the estimate %d leaves room in %d tokens: the case tests nothing", est, modelMax)
			}
			_, err := o.Chat(context.Background(), ChatRequest{Stage: "02-draft", Messages: msgs})
			calls := f.chatCalls()
			if !c.sent {
				if KindOf(err) != KindPromptTooLong || len(calls) != 0 {
					t.Fatalf("estimate %d: err %v and %d requests, want a refusal before any call", est, err, len(calls))
				}
				return
			}
			if err != nil || len(calls) != 1 {
				t.Fatalf("estimate %d (within the margin of %d): err %v and %d requests, want the call made", est, modelMax, err, len(calls))
			}
			if got := numOpt(calls[0].Options, "num_ctx"); got != modelMax {
				t.Errorf("num_ctx %d, want the model's whole window %d", got, modelMax)
			}
		})
	}
}
