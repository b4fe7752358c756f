package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
)

// refuseAndRecord refuses with an untrusted fault and keeps what it was
// asked.
func refuseAndRecord(asked *[]act.Action) act.Permit {
	return act.PermitFunc(func(a act.Action) error {
		*asked = append(*asked, a)
		return fault.Untrusted("the workspace is not trusted", "/w")
	})
}

// counter is a model server that counts what reaches it.
func counter(t *testing.T) (string, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// A client asks its permit before each request, told the server's
// address as configured: refused, nothing reaches the server, nothing
// is tried again, and the refusal's fault is the error's.
func TestARefusedClientContactsNothing(t *testing.T) {
	url, n := counter(t)
	for name, c := range map[string]func(act.Permit) (Client, error){
		"ollama": func(p act.Permit) (Client, error) { return NewOllama(WithPermit(p), WithBaseURL(url), WithModel("m")) },
		"openai": func(p act.Permit) (Client, error) {
			return NewOpenAI(WithPermit(p), WithBaseURL(url+"/v1"), WithModel("m"))
		},
	} {
		var asked []act.Action
		client, err := c(refuseAndRecord(&asked))
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
		if fault.KindOf(err) != fault.KindUntrusted {
			t.Errorf("%s: Chat = %v, want the permit's untrusted fault", name, err)
		}
		if len(asked) != 1 || asked[0].Kind != act.Contact || asked[0].Named.Address == "" {
			t.Errorf("%s: the permit was asked %+v, want one contact with its address", name, asked)
		}
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("the server got %d requests", got)
	}
}

// The address a permit is told is the one configured: the option's,
// else OLLAMA_HOST's, else Ollama's default.
func TestTheClientSaysWhereItsAddressComesFrom(t *testing.T) {
	for _, tc := range []struct{ option, env, want string }{
		{"http://10.0.0.2:11434", "other:1", "http://10.0.0.2:11434"},
		{"", "gpu-box:11434", "gpu-box:11434"},
		{"", "", DefaultOllamaHost},
	} {
		var asked []act.Action
		c, err := NewOllama(WithPermit(refuseAndRecord(&asked)), WithBaseURL(tc.option), WithRetry(0, 1),
			WithGetenv(func(k string) string {
				if k == "OLLAMA_HOST" {
					return tc.env
				}
				return ""
			}))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = ListModels(context.Background(), c)
		if len(asked) != 1 || asked[0].Named.Address != tc.want {
			t.Errorf("option %q, OLLAMA_HOST %q: asked %+v, want the address %q", tc.option, tc.env, asked, tc.want)
		}
	}
}

// A pull asks the permit as a pull of that model (the server would
// fetch it from its registry) before the server hears of it.
func TestARefusedPullNeverReachesTheServer(t *testing.T) {
	url, n := counter(t)
	var asked []act.Action
	deny := act.PermitFunc(func(a act.Action) error {
		asked = append(asked, a)
		if a.Kind == act.Pull {
			return errors.New("a model the untrusted workspace names")
		}
		return nil
	})
	c, err := NewOllama(WithPermit(deny), WithBaseURL(url))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Pull(context.Background(), "registry.example.test/ns/m", nil); err == nil {
		t.Fatal("the refused pull succeeded")
	}
	if len(asked) != 1 || asked[0].Kind != act.Pull || asked[0].Named.Model != "registry.example.test/ns/m" {
		t.Errorf("asked %+v", asked)
	}
	if n.Load() != 0 {
		t.Fatal("the server heard of the refused pull")
	}
}
