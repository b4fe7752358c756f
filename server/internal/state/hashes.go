package state

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Hashes maps workspace-relative paths to content hashes. File names need
// not be UTF-8, while JSON strings must be: a name that is not valid UTF-8
// is written as "b64:" and its bytes in base64 (and so is a valid name
// that happens to start with "b64:"), so every name reads back exactly
// and still matches the file it came from.
type Hashes map[string]string

const b64Prefix = "b64:"

// MarshalJSON writes the map with names that JSON can carry.
func (h Hashes) MarshalJSON() ([]byte, error) {
	if h == nil {
		return []byte("null"), nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[encodeName(k)] = v
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads names written by MarshalJSON.
func (h *Hashes) UnmarshalJSON(data []byte) error {
	var in map[string]string
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	if in == nil {
		*h = nil
		return nil
	}
	out := make(Hashes, len(in))
	for k, v := range in {
		out[decodeName(k)] = v
	}
	*h = out
	return nil
}

func encodeName(name string) string {
	if utf8.ValidString(name) && !strings.HasPrefix(name, b64Prefix) {
		return name
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(name))
}

func decodeName(key string) string {
	if !strings.HasPrefix(key, b64Prefix) {
		return key
	}
	b, err := base64.StdEncoding.DecodeString(key[len(b64Prefix):])
	if err != nil {
		return key // written by hand, not by icm: keep it as it is
	}
	return string(b)
}
