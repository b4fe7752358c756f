package writeout

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
)

// checkKind refuses content that is not what the file's extension says:
// a model that invents a .json file as Markdown, or a .csv without rows,
// learns why at once and can write it again.
func checkKind(rel, content string) error {
	if contract.NonText(rel) {
		return fmt.Errorf("%s cannot be written as text (a %s file is made by a person or a command, never by the model): leave it out", rel, path.Ext(rel))
	}
	switch strings.ToLower(path.Ext(rel)) {
	case ".json":
		var v any
		if err := json.Unmarshal([]byte(content), &v); err != nil {
			return fmt.Errorf("%s is not valid JSON (%v): write the whole file as JSON, without Markdown around it", rel, jsonReason(err))
		}
	case ".jsonl", ".ndjson":
		n := 0
		for i, line := range strings.Split(content, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			n++
			var v any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				return fmt.Errorf("%s is not valid JSON Lines: line %d is not JSON (%v); write one JSON value a line", rel, i+1, jsonReason(err))
			}
		}
		if n == 0 {
			return fmt.Errorf("%s has no rows: write one JSON value a line", rel)
		}
	case ".csv":
		return checkTable(rel, content, ',')
	case ".tsv":
		return checkTable(rel, content, '\t')
	}
	return nil
}

// checkTable refuses a table file that does not parse, or that holds no
// row below its header.
func checkTable(rel, content string, sep rune) error {
	r := csv.NewReader(strings.NewReader(content))
	r.Comma = sep
	n := 0
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s is not valid CSV: %v; every row needs as many fields as the header", rel, err)
		}
		n++
	}
	if n < 2 {
		return fmt.Errorf("%s has no rows: a table needs its header line and at least one row of data", rel)
	}
	return nil
}

// jsonReason is a JSON error without the decoder's type names.
func jsonReason(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%s at byte %d", syn.Error(), syn.Offset)
	}
	if err.Error() == "unexpected end of JSON input" {
		return "it ends before the JSON does"
	}
	return err.Error()
}
