package verify

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/schemas"
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
	if env.Schemas == nil {
		return nil, fmt.Errorf("json-schema: no workspace to read %s from", schemaPath)
	}
	raw, err := env.Schemas.Files.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("unable to read schema %s: %w", schemaPath, err)
	}
	sch, err := schemas.CompileIn(env.Schemas, abs, raw)
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

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
