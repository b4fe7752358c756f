package session

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// TestAFailedPullOffersWhatCanWork pulls a misspelt name the registry
// does not have. The failure says why in words, and its fixes are the
// ones that can work: the installed model the name was probably meant to
// be, then a choice among the server's models. It never offers the same
// pull again. Before, the fault's message was the server's ("pull model
// manifest: file does not exist") and its one fix a bare "choose model".
func TestAFailedPullOffersWhatCanWork(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b"}, {Name: "llama3.2:3b"}}})
	ws := openWS(t, strings.Replace(threeStages, "%s", "", 1))
	s := Open(ws, Options{Settings: Settings{Host: srv.URL()}})
	defer s.Close()
	p, err := s.PreparePull("qwen3.5:9")
	if err != nil {
		t.Fatal(err)
	}
	err = p.Run(context.Background(), nil)
	fe := fault.From(err)
	if fe == nil || fe.Kind != fault.KindModelMissing {
		t.Fatalf("err = %v, want model-missing", err)
	}
	if want := `the model registry has no model named "qwen3.5:9"`; !strings.HasPrefix(fe.Msg, want) {
		t.Errorf("message %q, want it to start %q", fe.Msg, want)
	}
	if !strings.Contains(fe.Hint, "qwen3.5:9b") || !strings.Contains(fe.Hint, "ollama.com/library") {
		t.Errorf("hint %q: want the likely model and where names are listed", fe.Hint)
	}
	var ids []string
	for _, a := range fe.Actions {
		ids = append(ids, string(a.ID)+":"+a.Model)
	}
	if got, want := strings.Join(ids, " "), "choose-model:qwen3.5:9b choose-model:"; got != want {
		t.Errorf("actions %q, want %q (use the likely model, or pick from the server's list; no pull)", got, want)
	}
}

// TestAFailedPullWithNothingClose: no installed model is close, so the
// one fix is a choice among what the server has, named in the hint.
func TestAFailedPullWithNothingClose(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "llama3.2:3b"}}})
	ws := openWS(t, strings.Replace(threeStages, "%s", "", 1))
	s := Open(ws, Options{Settings: Settings{Host: srv.URL()}})
	defer s.Close()
	p, err := s.PreparePull("nosuch-model:1b")
	if err != nil {
		t.Fatal(err)
	}
	fe := fault.From(p.Run(context.Background(), nil))
	if fe == nil || len(fe.Actions) != 1 || fe.Actions[0].ID != fault.ChooseModel || fe.Actions[0].Model != "" {
		t.Fatalf("fault %+v, want one choose-model fix", fe)
	}
	if !strings.Contains(fe.Hint, "llama3.2:3b") {
		t.Errorf("hint %q does not name what the server has", fe.Hint)
	}
}
