package llm

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/config"
)

func TestFromConfig(t *testing.T) {
	env := map[string]string{"KEY": "sk-1", "OLLAMA_HOST": "10.0.0.9:1234"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name string
		m    config.Model
		// check inspects the client; err is a part of the expected error.
		check func(t *testing.T, c Client)
		err   string
	}{
		{name: "ollama by default", m: config.Model{Name: "x"}, check: func(t *testing.T, c Client) {
			o, ok := c.(*Ollama)
			if !ok || o.BaseURL() != "http://10.0.0.9:1234" {
				t.Errorf("%T %v", c, c)
			}
		}},
		{name: "openai with key", m: config.Model{Provider: "openai", BaseURL: "http://127.0.0.1:8000/v1", APIKeyEnv: "KEY", ContextLength: 8192}, check: func(t *testing.T, c Client) {
			o, ok := c.(*OpenAI)
			if !ok || o.BaseURL() != "http://127.0.0.1:8000/v1" || o.apiKey != "sk-1" || o.contextLength != 8192 {
				t.Errorf("%T %+v", c, c)
			}
		}},
		{name: "servers make a pool", m: config.Model{Provider: "openai", APIKeyEnv: "KEY", Servers: []config.ModelServer{{URL: "http://a:1/v1", Slots: 4}, {URL: "http://b:1/v1"}}}, check: func(t *testing.T, c Client) {
			p, ok := c.(*Pool)
			if !ok || len(p.members) != 2 || p.members[0].Slots != 4 || p.members[1].Slots != 1 {
				t.Fatalf("%T %+v", c, c)
			}
			m := p.members[1].Client.(*OpenAI)
			if m.apiKey != "sk-1" || m.maxAttempts != 1 {
				t.Errorf("member: key %q, attempts %d", m.apiKey, m.maxAttempts)
			}
		}},
		{name: "empty key variable", m: config.Model{Provider: "openai", BaseURL: "http://x/v1", APIKeyEnv: "NOPE"}, err: "NOPE"},
		{name: "openai needs an address", m: config.Model{Provider: "openai"}, err: "base_url is empty"},
		{name: "unknown provider", m: config.Model{Provider: "grpc"}, err: "provider"},
		{name: "server without url", m: config.Model{Servers: []config.ModelServer{{Slots: 2}}}, err: "has no url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := FromConfig(tc.m, getenv, WithPermit(testPermit))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}
