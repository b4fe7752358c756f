package trust

import (
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
)

// Ollama's own registry: a model name with no host, or with one of
// these, is pulled from it.
var ollamaRegistries = map[string]bool{"registry.ollama.ai": true, "ollama.com": true}

// RegistryHost is the registry a model name would be pulled from when it
// names one other than Ollama's own ("models.example.test" of
// "models.example.test/ns/model:tag", "host:5000" of
// "http://host:5000/ns/m"); "" for Ollama's own. A name is read as
// Ollama reads it: its tag after the last ":" that follows the last "/",
// then the model, the namespace and, when something is left, the host
// (with an optional scheme).
func RegistryHost(name string) string {
	s := strings.TrimSpace(name)
	if at := strings.LastIndex(s, "@"); at >= 0 {
		s = s[:at] // a digest
	}
	if strings.LastIndex(s, ":") > strings.LastIndex(s, "/") {
		s = s[:strings.LastIndex(s, ":")]
	}
	i := strings.LastIndex(s, "/")
	if i < 0 {
		return ""
	}
	s = s[:i] // host/namespace
	i = strings.LastIndex(s, "/")
	if i < 0 {
		return "" // namespace only: Ollama's registry
	}
	host := s[:i]
	if _, after, ok := strings.Cut(host, "://"); ok {
		host = after
	}
	if ollamaRegistries[strings.ToLower(host)] {
		return ""
	}
	return host
}

// PullValue is the value of the part a model name is ("NAME, pulls from
// HOST"), false when the name is pulled from Ollama's own registry (no
// part). An operation about to pull a model asks Parts.Names(Pull,
// value) of an untrusted workspace's parts.
func PullValue(name string) (string, bool) {
	name = strings.TrimSpace(name)
	host := RegistryHost(name)
	if host == "" {
		return "", false
	}
	return name + ", pulls from " + host, true
}

// pulls are the parts of the model names at where that name other
// registries.
func pulls(where string, names ...string) Parts {
	var ps Parts
	for _, n := range names {
		if v, ok := PullValue(n); ok {
			ps = append(ps, Part{Kind: Pull, Where: where, Value: v})
		}
	}
	return ps
}

// configPulls are the model names config.toml gives ([model] name,
// [test] models and judge) that name other registries.
func configPulls(cfg config.Config) Parts {
	if cfg.Path == "" {
		return nil
	}
	ps := pulls("config.toml [model] name", cfg.Model.Name)
	ps = append(ps, pulls("config.toml [test] models", cfg.Test.Models...)...)
	return append(ps, pulls("config.toml [test] judge", cfg.Test.Judge)...)
}
