package llm

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
)

// badSetting is a model setting that cannot be used (config.toml's
// [model], OLLAMA_HOST, the model server setting): the message says
// which and why, hint what to write instead.
func badSetting(hint, format string, args ...any) *fault.Error {
	return fault.ConfigInvalid(fmt.Sprintf(format, args...), hint, "")
}

// addressHint is what to write for a model server's address.
const addressHint = "write the model server's address as http://host:port (or host:port)"
