package testcase

import (
	"errors"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/schemas"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// schemaProblem compiles a case's schema file abs as icm test will and
// says what keeps it from being used, as a finding's code and message; ""
// when nothing does. A file the workspace refuses to read is left to the
// run, which says so in its own words.
func schemaProblem(ws *workspace.Workspace, abs string) (code, msg string) {
	raw, err := ws.Files.ReadFile(abs)
	if err != nil {
		return "", ""
	}
	_, err = schemas.CompileIn(ws, abs, raw)
	var re *schemas.RefError
	switch {
	case err == nil:
		return "", ""
	case errors.As(err, &re):
		return contract.CodeSchemaRef, err.Error()
	}
	return contract.CodeBadSchema, err.Error()
}
