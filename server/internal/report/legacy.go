package report

import (
	"encoding/json"
	"strings"
	"unicode"
)

// Traces written before schema 2 key model and tool events by their Go
// field names ("PromptTokens"); these readers take both spellings, so a
// run recorded by an older icm still reads in icm history and the editor.

// UnmarshalJSON reads a model event in either key style.
func (m *ModelEvent) UnmarshalJSON(data []byte) error {
	type plain ModelEvent
	data, err := SnakeKeys(data)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, (*plain)(m))
}

// UnmarshalJSON reads a tool event in either key style.
func (t *ToolEvent) UnmarshalJSON(data []byte) error {
	type plain ToolEvent
	data, err := SnakeKeys(data)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, (*plain)(t))
}

// SnakeKeys rewrites a JSON object's Go-name keys into the snake_case
// ones (Err is error), for readers of model and tool events that decode
// only part of them; an object without one is returned as it is.
func SnakeKeys(data []byte) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return data, err
	}
	old := false
	for k := range obj {
		if k != "" && unicode.IsUpper(rune(k[0])) {
			old = true
			break
		}
	}
	if !old {
		return data, nil
	}
	out := make(map[string]json.RawMessage, len(obj))
	for k, v := range obj {
		out[snake(k)] = v
	}
	return json.Marshal(out)
}

// snake is a Go field name in snake_case: PromptTokens is prompt_tokens,
// NumCtx num_ctx, Err error.
func snake(name string) string {
	if name == "Err" {
		return "error"
	}
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
