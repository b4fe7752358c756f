package check

import (
	"errors"
	"fmt"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/schemas"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// fileSettings checks the schema files named by Model format and Verify
// json-schema: each must exist and compile as a run compiles it, its
// references leading to nothing outside the workspace.
func (c *checker) fileSettings(st *workspace.Stage, k *contract.Contract) {
	if m := k.Model; m != nil && m.Format != "" && m.Format != "json" {
		c.schemaFile(st, m.Format, m.FormatRange, "the format schema")
	}
	for _, v := range k.Verify {
		if v.Kind == contract.CheckJSONSchema {
			c.schemaFile(st, v.Arg, v.Range, "the json-schema file")
		}
	}
}

// schemaFile checks one schema file p, named at r as what.
func (c *checker) schemaFile(st *workspace.Stage, p string, r document.Range, what string) {
	add := func(code, msg string) {
		c.add(contract.Finding{File: st.Contract, Range: r, Severity: contract.Error, Code: code, Message: msg})
	}
	abs, err := c.ws.Resolve(st.Dir, p)
	if err != nil {
		add(contract.CodePathEscape, err.Error())
		return
	}
	if _, err := c.ws.Files.Stat(abs); err != nil {
		add(contract.CodeFormatFileMissing, fmt.Sprintf("%s %s does not exist", what, c.ws.Rel(abs)))
		return
	}
	raw, err := c.ws.Files.ReadFile(abs)
	if err != nil {
		if workspace.Refused(err) {
			add(contract.CodeFileRefused, fmt.Sprintf("%s %s cannot be read: %v%s", what, c.ws.Rel(abs), err, hint(err)))
		}
		return
	}
	_, err = schemas.CompileIn(c.ws, abs, raw)
	var re *schemas.RefError
	switch {
	case err == nil:
	case errors.As(err, &re):
		add(contract.CodeSchemaRef, err.Error())
	default:
		add(contract.CodeBadSchema, err.Error())
	}
}

// hint is ": " and what err says to do, or "" when it says nothing.
func hint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return ": " + h.Hint()
	}
	return ""
}
