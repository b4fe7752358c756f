package verify

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/state"
)

func jsonSchema(o Output, data []byte, schemaPath string, env Env) ([]state.VerifyFinding, error) {
	if env.Resolve == nil {
		return nil, fmt.Errorf("json-schema: no way to resolve %s", schemaPath)
	}
	abs, err := env.Resolve(schemaPath)
	if err != nil {
		return nil, fmt.Errorf("json-schema: %w", err)
	}
	raw, err := env.read(abs)
	if err != nil {
		return nil, fmt.Errorf("unable to read schema %s: %w", schemaPath, err)
	}
	sch, err := CompileSchema(abs, raw)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []state.VerifyFinding{{File: o.Rel, Line: 1, Message: "the output is not JSON: " + err.Error()}}, nil
	}
	if err := sch.Validate(v); err != nil {
		return []state.VerifyFinding{{File: o.Rel, Message: "does not match " + schemaPath + ": " + oneLine(err.Error())}}, nil
	}
	return nil, nil
}

// CompileSchema compiles a JSON Schema document (name is used in errors).
func CompileSchema(name string, raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema %s is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		return nil, fmt.Errorf("unable to load schema %s: %w", name, err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("schema %s is not valid: %w", name, err)
	}
	return sch, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
