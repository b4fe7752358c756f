package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/schemas"
)

// jsonTypes are the type names JSON Schema knows.
var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "array": true, "object": true, "null": true}

// extraction is a checked extract schema: the caller's schema, the
// nullable form sent to the model, and a validator for that form.
type extraction struct {
	fields   []string // property names in a stable order
	props    map[string]any
	nullable map[string]any
	check    *jsonschema.Schema
}

// newExtraction reads a caller's schema. Small models often write
// {"field": "description"} instead of JSON Schema, so that shorthand is
// taken too: each value becomes a string field described by it (or of
// that type, when the value is a JSON type name).
func newExtraction(schema map[string]any) (*extraction, error) {
	if len(schema) == 0 {
		return nil, errors.New(`the schema is empty; give a JSON Schema object such as {"type":"object","properties":{"price":{"type":"number"}}}`)
	}
	schema = normalize(schema)
	props, ok := schema["properties"].(map[string]any)
	if !ok || len(props) == 0 {
		return nil, errors.New(`the schema has no properties; name the fields to extract, e.g. {"type":"object","properties":{"title":{"type":"string"}}}`)
	}
	e := &extraction{props: props}
	e.fields = slices.Sorted(maps.Keys(props))
	if order, ok := schema["required"].([]any); ok {
		e.fields = orderFields(e.fields, order)
	}
	e.nullable = nullableSchema(schema)
	check, err := compile(e.nullable)
	if err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON Schema: %w", err)
	}
	e.check = check
	return e, nil
}

// normalize turns the shorthand form into JSON Schema and leaves a real
// schema as it is.
func normalize(schema map[string]any) map[string]any {
	if _, ok := schema["properties"]; ok {
		return schema
	}
	if t, ok := schema["type"].(string); ok && t == "object" {
		return schema
	}
	props := map[string]any{}
	for k, v := range schema {
		switch v := v.(type) {
		case string:
			if jsonTypes[v] {
				props[k] = map[string]any{"type": v}
			} else {
				props[k] = map[string]any{"type": "string", "description": v}
			}
		case map[string]any:
			props[k] = v
		case []any:
			props[k] = map[string]any{"type": "array"}
		default:
			props[k] = map[string]any{}
		}
	}
	return map[string]any{"type": "object", "properties": props}
}

// orderFields puts the required fields first, in the caller's order.
func orderFields(fields []string, required []any) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range required {
		if s, ok := r.(string); ok && slices.Contains(fields, s) && !seen[s] {
			out = append(out, s)
			seen[s] = true
		}
	}
	for _, f := range fields {
		if !seen[f] {
			out = append(out, f)
		}
	}
	return out
}

// nullableSchema returns a copy of schema in which every top-level field
// may be null and is required, so the model always answers every field
// and says null for what it did not find.
func nullableSchema(schema map[string]any) map[string]any {
	out := deepCopy(schema).(map[string]any)
	out["type"] = "object"
	props := out["properties"].(map[string]any)
	req := make([]any, 0, len(props))
	for _, k := range slices.Sorted(maps.Keys(props)) {
		p, ok := props[k].(map[string]any)
		if !ok {
			p = map[string]any{}
		}
		props[k] = nullable(p)
		req = append(req, k)
	}
	out["required"] = req
	out["additionalProperties"] = false
	return out
}

func nullable(p map[string]any) map[string]any {
	switch t := p["type"].(type) {
	case string:
		if t != "null" {
			p["type"] = []any{t, "null"}
		}
		return p
	case []any:
		if !slices.Contains(t, any("null")) {
			p["type"] = append(t, "null")
		}
		return p
	}
	if len(p) == 0 {
		return p // any value, null included
	}
	if enum, ok := p["enum"].([]any); ok && !slices.Contains(enum, nil) {
		p["enum"] = append(enum, nil)
		return p
	}
	return map[string]any{"anyOf": []any{p, map[string]any{"type": "null"}}}
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = deepCopy(x)
		}
		return s
	}
	return v
}

// compile compiles a caller's schema. It comes from a model and may refer
// only to itself: no file is read, no address fetched (package schemas).
func compile(schema map[string]any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	return schemas.Compile("extract.json", raw)
}

// decodeObject reads a model's JSON answer into a map (numbers kept exact).
func decodeObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("the model's answer is not a JSON object: %w", err)
	}
	return m, nil
}

// clean keeps the fields of one chunk's answer that are valid on their
// own; a wrong-typed value counts as not found.
func (e *extraction) clean(m map[string]any) map[string]any {
	out := make(map[string]any, len(e.fields))
	for _, f := range e.fields {
		v, ok := m[f]
		if !ok || v == nil {
			continue
		}
		probe := make(map[string]any, len(e.fields))
		for _, g := range e.fields {
			probe[g] = nil
		}
		probe[f] = v
		if e.check.Validate(probe) == nil {
			out[f] = v
		}
	}
	return out
}

// merge combines chunk answers in page order: a list field is the ordered
// union of every chunk's items without repeats; any other field takes the
// first value found. Fields found nowhere are null.
func (e *extraction) merge(parts []map[string]any) map[string]any {
	out := make(map[string]any, len(e.fields))
	for _, f := range e.fields {
		out[f] = nil
		if isArrayField(e.props[f]) {
			var items []any
			seen := map[string]bool{}
			for _, p := range parts {
				arr, _ := p[f].([]any)
				for _, it := range arr {
					k := canonical(it)
					if !seen[k] {
						seen[k] = true
						items = append(items, it)
					}
				}
			}
			if len(items) > 0 {
				out[f] = items
			}
			continue
		}
		for _, p := range parts {
			if v, ok := p[f]; ok && !empty(v) {
				out[f] = v
				break
			}
		}
	}
	return out
}

func isArrayField(p any) bool {
	m, ok := p.(map[string]any)
	if !ok {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		return t == "array"
	case []any:
		return slices.Contains(t, any("array"))
	}
	return false
}

// empty is a value that says "not found" in a model's own words.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		switch v {
		case "", "null", "NULL", "None", "N/A", "n/a":
			return true
		}
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// canonical is a stable key for an item (JSON with sorted keys).
func canonical(v any) string {
	b, err := json.Marshal(sortKeys(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortKeys(v any) any {
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, 0, 2*len(keys))
		for _, k := range keys {
			out = append(out, k, sortKeys(m[k]))
		}
		return out
	}
	return v
}
