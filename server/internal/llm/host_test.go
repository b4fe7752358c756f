package llm

import (
	"net/url"
	"strings"
	"testing"
)

func TestOllamaHostURL(t *testing.T) {
	cases := []struct {
		in, want string
		bad      bool
	}{
		{"", "http://127.0.0.1:11434", false},
		{"127.0.0.1:8080", "http://127.0.0.1:8080", false},
		{":9999", "http://127.0.0.1:9999", false},
		{"gpu-box", "http://gpu-box:11434", false},
		{"0.0.0.0", "http://0.0.0.0:11434", false},
		{"http://gpu-box", "http://gpu-box:80", false},
		{"https://models.example.org", "https://models.example.org:443", false},
		{"https://models.example.org/ollama/", "https://models.example.org:443/ollama", false},
		{"HTTP://box:1234", "http://box:1234", false},
		{"[::1]:11434", "http://[::1]:11434", false},
		{"::1", "http://[::1]:11434", false},
		{"a:b:c", "", true},
		{"[::1]", "http://[::1]:11434", false},
		{` "localhost:11434" `, "http://localhost:11434", false},
		{"box:notaport", "", true},
		{"box:70000", "", true},
		{"ftp://box", "", true},
		{"bad host:1", "", true},
	}
	for _, c := range cases {
		u, err := OllamaHostURL(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("OllamaHostURL(%q) = %v, want an error", c.in, u)
			}
			continue
		}
		if err != nil {
			t.Errorf("OllamaHostURL(%q): %v", c.in, err)
			continue
		}
		if u.String() != c.want {
			t.Errorf("OllamaHostURL(%q) = %s, want %s", c.in, u, c.want)
		}
	}
}

func TestNewOllamaReadsOllamaHost(t *testing.T) {
	env := map[string]string{"OLLAMA_HOST": "127.0.0.1:4321"}
	o, err := NewOllama(WithPermit(testPermit), WithGetenv(func(k string) string { return env[k] }))
	if err != nil || o.BaseURL() != "http://127.0.0.1:4321" {
		t.Fatalf("base %v, err %v; want OLLAMA_HOST", o, err)
	}
	o, err = NewOllama(WithPermit(testPermit), WithGetenv(func(k string) string { return env[k] }), WithBaseURL("http://10.0.0.2:11434"))
	if err != nil || o.BaseURL() != "http://10.0.0.2:11434" {
		t.Fatalf("an explicit base URL must win over OLLAMA_HOST: %v %v", o, err)
	}
	env["OLLAMA_HOST"] = "box:bad"
	if _, err := NewOllama(WithPermit(testPermit), WithGetenv(func(k string) string { return env[k] })); err == nil || !strings.Contains(err.Error(), "OLLAMA_HOST") {
		t.Errorf("err = %v, want it to name OLLAMA_HOST", err)
	}
}

func FuzzOllamaHostURL(f *testing.F) {
	for _, s := range []string{"", "host:1", "https://h/p", "[::1]:2", ":3", "http://", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := OllamaHostURL(s)
		if err != nil {
			return
		}
		// Whatever is accepted must be a usable absolute URL with a port.
		back, perr := url.Parse(u.String())
		if perr != nil || back.Port() == "" || (back.Scheme != "http" && back.Scheme != "https") {
			t.Fatalf("OllamaHostURL(%q) = %q, not a usable server URL (%v)", s, u, perr)
		}
	})
}
