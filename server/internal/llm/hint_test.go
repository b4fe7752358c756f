package llm

import "errors"

// hintOf is the hint an *Error carries, for tests that read it before
// the fault conversion rewords it for a person.
func hintOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}
