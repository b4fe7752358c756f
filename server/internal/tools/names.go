package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// maxToolName is the longest function name OpenAI-style APIs accept
// (^[a-zA-Z0-9_-]{1,64}$); Ollama passes names through to templates, where
// the same characters are the safe ones.
const maxToolName = 64

// ExposedName is how the model sees a server's tool: "server_tool", with
// every character other than letters, digits, '_' and '-' replaced by '_',
// and names longer than 64 characters shortened with a hash suffix so they
// stay unique.
func ExposedName(server, tool string) string {
	full := server + "_" + tool
	var b strings.Builder
	for _, r := range full {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(full))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:maxToolName-len(suffix)] + suffix
}

// uniqueName returns name, or name with a numeric suffix if taken (two
// different tools can sanitize to the same name: "a.b" and "a_b").
func uniqueName(name string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suffix) > maxToolName {
			base = base[:maxToolName-len(suffix)]
		}
		if c := base + suffix; !taken[c] {
			return c
		}
	}
}
