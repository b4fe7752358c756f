package session

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
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
	p, err := s.ModelServer().PreparePull("qwen3.5:9")
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
	p, err := s.ModelServer().PreparePull("nosuch-model:1b")
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

// TestAPullFromARegistryTheWorkspaceNamesNeedsTrust: a model on a
// registry of its own that an untrusted workspace names (config.toml or
// a contract's Model section) is not pulled, whoever asks, and the
// refusal names the registry; a name the person gives that the
// workspace does not name is theirs, and so is a pull once the
// workspace is trusted.
func TestAPullFromARegistryTheWorkspaceNamesNeedsTrust(t *testing.T) {
	trusttest.ConfigDir(t)
	archive := `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "models.example.test/ns/m:latest"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Model
model: other.example.test/ns/n

## Process
Write.

## Outputs
- a.md -> output/
`
	ws := openWS(t, archive)
	s := Open(ws, Options{Settings: Settings{Host: "http://127.0.0.1:1"}})
	defer s.Close()
	for _, model := range []string{"", "other.example.test/ns/n"} {
		_, err := s.ModelServer().PreparePull(model)
		if fault.KindOf(err) != fault.KindUntrusted || !strings.Contains(err.Error(), "example.test") {
			t.Errorf("pull %q untrusted: %v, want a refusal naming the registry", model, err)
		}
	}
	if _, err := s.ModelServer().PreparePull("mine.example.test/me/m"); err != nil {
		t.Errorf("the person's own name: %v", err)
	}
	trusttest.Grant(t, ws.Root)
	trusted := Open(ws, Options{Settings: Settings{Host: "http://127.0.0.1:1"}})
	defer trusted.Close()
	if _, err := trusted.ModelServer().PreparePull(""); err != nil {
		t.Errorf("trusted: %v", err)
	}
}
