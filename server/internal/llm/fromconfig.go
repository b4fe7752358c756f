package llm

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
)

// Providers [model] provider may name.
const (
	ProviderOllama = "ollama"
	ProviderOpenAI = "openai"
)

// FromConfig builds the client a workspace's [model] section asks for:
// Ollama's native API (provider "ollama", the default) or an
// OpenAI-compatible server (provider "openai"); one server at base_url,
// or a Pool over [[model.servers]] when that lists any (base_url is then
// unused). API keys are read through getenv from the variables
// api_key_env names (per server, else the section's); a variable that is
// named but empty is an error, so a missing key is not found out by a
// 401 halfway through a run. opts come last and win over the config,
// except that each pool member keeps its own address.
func FromConfig(m config.Model, getenv func(string) string, opts ...Option) (Client, error) {
	provider := strings.ToLower(strings.TrimSpace(m.Provider))
	if provider == "" {
		provider = ProviderOllama
	}
	if provider != ProviderOllama && provider != ProviderOpenAI {
		return nil, badSetting(fmt.Sprintf("set [model] provider to %q or %q", ProviderOllama, ProviderOpenAI), "[model] provider = %q: use %q or %q", m.Provider, ProviderOllama, ProviderOpenAI)
	}
	base := append(ConfigOptions(m), WithGetenv(getenv), WithContextLength(m.ContextLength))
	build := func(url, keyEnv string, extra ...Option) (Client, error) {
		o := append(append([]Option(nil), base...), WithBaseURL(url))
		if keyEnv != "" {
			key := strings.TrimSpace(getenv(keyEnv))
			if key == "" {
				return nil, badSetting("export the key in that variable, or remove api_key_env for a server that needs none", "[model] api_key_env names %s, but that environment variable is empty: export the key in it, or remove api_key_env for a server that needs none", keyEnv)
			}
			o = append(o, WithAPIKey(key))
		}
		o = append(append(o, opts...), extra...)
		if provider == ProviderOpenAI {
			return NewOpenAI(o...)
		}
		return NewOllama(o...)
	}
	if len(m.Servers) == 0 {
		return build(m.BaseURL, m.APIKeyEnv)
	}
	members := make([]PoolMember, 0, len(m.Servers))
	for i, s := range m.Servers {
		if strings.TrimSpace(s.URL) == "" {
			return nil, badSetting("give every [[model.servers]] entry its server's url", "[[model.servers]] entry %d has no url", i+1)
		}
		keyEnv := s.APIKeyEnv
		if keyEnv == "" {
			keyEnv = m.APIKeyEnv
		}
		// One attempt per call on a member: trying again is the pool's
		// job, on another server while this one cools down.
		c, err := build(s.URL, keyEnv, WithRetry(0, 1), WithBaseURL(s.URL))
		if err != nil {
			return nil, fmt.Errorf("[[model.servers]] entry %d (%s): %w", i+1, s.URL, err)
		}
		members = append(members, PoolMember{Client: c, Slots: s.Slots, Name: s.URL})
	}
	return NewPool(members)
}

// CachesOf is what a workspace's [model] section says of its servers'
// prompt caches: slots and multiuser_cache of [model] for the server it
// names, each [[model.servers]] entry's own for that server. A server
// of which config.toml states neither is left out: icm assumes one slot
// for it and says so.
func CachesOf(m config.Model) Caches {
	const source = "config.toml"
	c := Caches{ByServer: map[string]CacheSetup{}}
	if m.Slots > 0 || m.MultiuserCache != nil {
		c.Default = CacheSetup{Slots: m.Slots, MultiUser: m.MultiuserCache != nil && *m.MultiuserCache, Source: source}
	}
	for _, s := range m.Servers {
		if s.Slots <= 0 && s.MultiuserCache == nil {
			continue
		}
		key := s.URL
		if u, err := OllamaHostURL(s.URL); err == nil {
			key = u.String()
		}
		c.ByServer[serverKey(key)] = CacheSetup{Slots: s.Slots, MultiUser: s.MultiuserCache != nil && *s.MultiuserCache, Source: source}
	}
	return c
}
