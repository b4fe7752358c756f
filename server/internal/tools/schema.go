package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/icm-tool/icm/server/internal/schemas"
)

// emptyObjectSchema is offered for tools that declare no input schema.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// normalizeSchema makes sure what is offered to the model is a JSON object
// schema: a missing schema, or one that is not an object, becomes the empty
// object schema, and a schema without "type" gets "type": "object" (model
// APIs require it). Anything else is kept byte for byte, property order
// included.
func normalizeSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil {
		return emptyObjectSchema
	}
	if _, ok := m["type"]; ok {
		return raw
	}
	m["type"] = json.RawMessage(`"object"`)
	b, err := json.Marshal(m)
	if err != nil {
		return emptyObjectSchema
	}
	return b
}

// argSchema checks a tool's arguments and explains failures to the model.
type argSchema struct {
	compiled *jsonschema.Schema
	// compileErr is why the schema could not be used; arguments are then
	// only checked to be an object.
	compileErr error
	expected   string
}

// newArgSchema compiles a tool's input schema (draft 2020-12 unless the
// schema names another). A schema comes from a server and is not trusted:
// it may refer only to itself (package schemas).
func newArgSchema(tool string, raw json.RawMessage) *argSchema {
	a := &argSchema{expected: describeExpected(raw)}
	a.compiled, a.compileErr = schemas.Compile("tools/"+ExposedName("s", tool)+".json", raw)
	return a
}

var printer = message.NewPrinter(language.English)

// check returns "" when args fit the schema, else a message for the model
// that says which argument is wrong and what is expected.
func (a *argSchema) check(exposed string, args map[string]any) string {
	if a.compiled == nil {
		return ""
	}
	// Re-read the arguments as JSON so numbers are json.Number, whatever
	// Go types the caller built them from.
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Sprintf("invalid arguments for %s: %v", exposed, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Sprintf("invalid arguments for %s: %v", exposed, err)
	}
	err = a.compiled.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Sprintf("invalid arguments for %s: %v", exposed, err)
	}
	var lines []string
	seen := map[string]bool{}
	for _, leaf := range leaves(ve) {
		where := "arguments"
		if len(leaf.InstanceLocation) > 0 {
			where = fmt.Sprintf("argument %q", strings.Join(leaf.InstanceLocation, "."))
		}
		line := "- " + where + ": " + leaf.ErrorKind.LocalizedString(printer)
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	const maxLines = 8
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("- (%d more)", len(lines)-maxLines))
	}
	msg := fmt.Sprintf("invalid arguments for %s; the tool was not called:\n%s", exposed, strings.Join(lines, "\n"))
	if a.expected != "" {
		msg += "\nexpected arguments: " + a.expected
	}
	return msg
}

// leaves collects the innermost causes, which name the offending value.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// describeExpected summarises the top-level properties of a schema:
// "query (string, required): what to search for; max_results (integer)".
func describeExpected(raw json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Enum        []any  `json:"enum"`
			Description string `json:"description"`
			Ref         string `json:"$ref"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	// Required arguments first, then by name, so the summary is stable.
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		p := s.Properties[n]
		var attrs []string
		switch t := p.Type.(type) {
		case string:
			attrs = append(attrs, t)
		case []any:
			var ts []string
			for _, x := range t {
				ts = append(ts, fmt.Sprint(x))
			}
			attrs = append(attrs, strings.Join(ts, " or "))
		}
		if len(p.Enum) > 0 {
			var vs []string
			for _, v := range p.Enum {
				b, _ := json.Marshal(v)
				vs = append(vs, string(b))
			}
			attrs = append(attrs, "one of "+strings.Join(vs, ", "))
		}
		if required[n] {
			attrs = append(attrs, "required")
		}
		part := n
		if len(attrs) > 0 {
			part += " (" + strings.Join(attrs, ", ") + ")"
		}
		if d := strings.TrimSpace(p.Description); d != "" {
			if len(d) > 100 {
				d = cutRunes(d, 100) + "…"
			}
			part += ": " + d
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}
