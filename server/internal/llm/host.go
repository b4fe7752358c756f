package llm

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultOllamaHost is where Ollama listens when OLLAMA_HOST is unset.
const DefaultOllamaHost = "http://127.0.0.1:11434"

// OllamaHostURL reads a server address the way Ollama reads OLLAMA_HOST:
// "host:port", ":port", "host", "http://host:port/prefix" or
// "https://host". A missing scheme means http; a missing port means 11434
// without a scheme, else the scheme's own port; an empty value means
// DefaultOllamaHost. Unlike Ollama, a bad port is an error rather than
// a silent fallback, so a typo does not send calls to the wrong place.
func OllamaHostURL(value string) (*url.URL, error) {
	s := strings.Trim(strings.TrimSpace(value), `"'`)
	if s == "" {
		s = DefaultOllamaHost
	}
	defaultPort := "11434"
	scheme, rest, hasScheme := strings.Cut(s, "://")
	if !hasScheme {
		scheme, rest = "http", s
	} else {
		scheme = strings.ToLower(scheme)
		switch scheme {
		case "http":
			defaultPort = "80"
		case "https":
			defaultPort = "443"
		default:
			return nil, badSetting(addressHint, "unable to use Ollama address %q: the scheme must be http or https", value)
		}
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: the whole thing is a host (an IPv6 literal may keep its brackets).
		host, port = strings.Trim(hostport, "[]"), defaultPort
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if strings.ContainsAny(host, " /?#@%[]") || (strings.Contains(host, ":") && net.ParseIP(host) == nil) {
		return nil, badSetting(addressHint, "unable to use Ollama address %q: %q is not a host name or IP address", value, host)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, badSetting(addressHint, "unable to use Ollama address %q: port %q is not a number from 1 to 65535", value, port)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path = strings.Trim(path, "/"); path != "" {
		u.Path = "/" + path
	}
	// Whatever is built must read back as the same address.
	if back, err := url.Parse(u.String()); err != nil || back.Host != u.Host {
		return nil, badSetting(addressHint, "unable to use Ollama address %q: not a usable URL", value)
	}
	return u, nil
}

// OllamaURL returns the address of the one Ollama server c talks to, or
// "" when c is not an Ollama client (an OpenAI-compatible server, a pool
// of several): icm's own child processes are pointed at it through
// OLLAMA_HOST only when that variable means what c uses.
func OllamaURL(c Client) string {
	switch v := c.(type) {
	case *Ollama:
		return v.BaseURL()
	case *fallback:
		return OllamaURL(v.Client)
	}
	return ""
}
