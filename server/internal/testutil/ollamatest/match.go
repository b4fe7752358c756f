package ollamatest

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// Matcher decides whether a rule answers a request. Matchers run while the
// engine holds its script lock, so they must only read the request (call no
// Server methods).
type Matcher func(r *Request) bool

// Any matches every request.
func Any() Matcher { return func(*Request) bool { return true } }

// LastUserContains matches when the last user message contains s. A For each
// item is matched by its title this way, since the item is in the user text.
func LastUserContains(s string) Matcher {
	return func(r *Request) bool { return strings.Contains(r.LastUser(), s) }
}

// LastUserMatches matches when the last user message matches the regular
// expression; it panics on a bad pattern, like regexp.MustCompile, because
// the pattern is part of the test.
func LastUserMatches(pattern string) Matcher {
	re := regexp.MustCompile(pattern)
	return func(r *Request) bool { return re.MatchString(r.LastUser()) }
}

// UserContains matches when any user message contains s.
func UserContains(s string) Matcher {
	return func(r *Request) bool {
		return slices.ContainsFunc(r.Messages, func(m api.Message) bool {
			return m.Role == "user" && strings.Contains(m.Content, s)
		})
	}
}

// SystemContains matches when the system text contains s.
func SystemContains(s string) Matcher {
	return func(r *Request) bool { return strings.Contains(r.System(), s) }
}

// HasToolResult matches when a tool result is present; with a name, only a
// result of that tool (matched on the message's tool_name).
func HasToolResult(name string) Matcher {
	return func(r *Request) bool {
		return slices.ContainsFunc(r.ToolResults(), func(m api.Message) bool {
			return name == "" || m.ToolName == name
		})
	}
}

// ToolResultContains matches when some tool result's content contains s.
func ToolResultContains(s string) Matcher {
	return func(r *Request) bool {
		return slices.ContainsFunc(r.ToolResults(), func(m api.Message) bool {
			return strings.Contains(m.Content, s)
		})
	}
}

// HasTools matches when the request offers any tools.
func HasTools() Matcher { return func(r *Request) bool { return len(r.Tools) > 0 } }

// OffersTool matches when the request offers a tool of that name.
func OffersTool(name string) Matcher {
	return func(r *Request) bool { return slices.Contains(r.ToolNames(), name) }
}

// HasFormat matches when the request asks for structured output ("json" or a schema).
func HasFormat() Matcher {
	return func(r *Request) bool {
		f := strings.TrimSpace(string(r.Format))
		return f != "" && f != "null" && f != `""`
	}
}

// ModelIs matches calls to the named model ("tiny" and "tiny:latest" are one model).
func ModelIs(name string) Matcher {
	want := normalizeName(name)
	return func(r *Request) bool { return normalizeName(r.Model) == want }
}

// And matches when every matcher matches (and when there are none).
func And(ms ...Matcher) Matcher {
	return func(r *Request) bool {
		for _, m := range ms {
			if !m(r) {
				return false
			}
		}
		return true
	}
}

// Or matches when some matcher matches.
func Or(ms ...Matcher) Matcher {
	return func(r *Request) bool {
		for _, m := range ms {
			if m(r) {
				return true
			}
		}
		return false
	}
}

// Not matches when m does not.
func Not(m Matcher) Matcher { return func(r *Request) bool { return !m(r) } }
