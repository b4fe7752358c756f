package canned

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// DecodeScript reads a script, one JSON object, into v, refusing fields
// v does not have (so a misspelt condition cannot silently match every
// call) and anything after the object. name (usually the file's path)
// starts an error, with the line and column of the fault.
func DecodeScript(name string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s:%s: invalid script: %w", name, position(data, errorOffset(err, dec.InputOffset())), err)
	}
	if dec.More() {
		return fmt.Errorf("%s:%s: invalid script: text after the script object", name, position(data, dec.InputOffset()))
	}
	return nil
}

// errorOffset returns where a decoding error points (for a type error,
// just after the value), or fallback.
func errorOffset(err error, fallback int64) int64 {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return syn.Offset - 1 // Offset counts the offending byte; point at it
	case errors.As(err, &typ):
		return typ.Offset
	}
	return fallback
}

// position turns a byte offset of data into "line:column", both counted
// from 1; an offset outside data is moved to its nearer end.
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("%d:%d", line, col)
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("200ms", "1.5s").
type Duration time.Duration

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string like \"200ms\", not %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("bad duration %q: it must not be negative", s)
	}
	*d = Duration(v)
	return nil
}
