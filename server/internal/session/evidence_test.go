package session

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// [evidence] embed_model is asked for vectors after a run and on review
// while the workspace is trusted; once its trust is revoked (it names a
// server address, which needs trust), the setting asks nothing of any
// server, even the person's own.
func TestEvidenceAsksTheEmbeddingModelOnlyWhenTrusted(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "config-model"}, {Name: "embed"}}})
	srv.Default(ollamatest.Text("Quarterly revenue grew sharply in the northern region.\n"))
	ws := openTrusted(t, strings.Replace(threeStages, "%s", "base_url = \""+srv.URL()+"\"\n[evidence]\nembed_model = \"embed\"", 1))
	s := Open(ws, Options{Settings: Settings{Host: srv.URL()}})
	defer s.Close()
	r, err := s.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	afterRun := srv.EmbeddedTexts()
	res, err := s.Reviews().Evidence(context.Background(), "01-a")
	if err != nil || len(res) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if afterRun == 0 || res[0].Method != "lexical+semantic (embed)" {
		t.Errorf("trusted: %d texts embedded after the run, method %q", afterRun, res[0].Method)
	}
	if _, err := s.Trust().Revoke(); err != nil {
		t.Fatal(err)
	}
	u := Open(ws, Options{Settings: Settings{Host: srv.URL()}})
	defer u.Close()
	before := srv.EmbeddedTexts()
	res, err = u.Reviews().Evidence(context.Background(), "01-a")
	if err != nil || len(res) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if u.Trust().Decision().Allowed() || srv.EmbeddedTexts() != before || res[0].Method != "lexical" {
		t.Errorf("untrusted: %d more texts embedded, method %q", srv.EmbeddedTexts()-before, res[0].Method)
	}
}
