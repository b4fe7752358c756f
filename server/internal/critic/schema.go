// Package critic judges a whole article with the model and decides in code
// whether it passes. The model fills a fixed JSON schema (structured output)
// with a score from 0 to 10 and a reason for each category, specific
// critiques and required revisions; an answer that is not valid against the
// schema is asked for once more, then reported. An article too long for one
// call is judged in chunks of whole sections, each with the outline of the
// whole. The overall score and the pass decision come from the category
// scores and the thresholds of the stage's contract, never from the model.
package critic

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/schemas"
)

// Schema is the JSON Schema the model's answer must match.
//
//go:embed schema.json
var Schema []byte

// Score is one category's score and the model's reason for it.
type Score struct {
	Score  int    `json:"score"`
	Reason string `json:"reason"`
}

// Judgment is one valid answer of the model.
type Judgment struct {
	Scores            map[string]Score `json:"scores"`
	SpecificCritiques []string         `json:"specific_critiques"`
	RequiredRevisions []string         `json:"required_revisions"`
}

// compiled is Schema compiled, on first use: compiling at start-up would
// cost every icm command, most of which never judge an article.
var compiled = sync.OnceValue(mustCompile)

func mustCompile() *jsonschema.Schema {
	s, err := schemas.Compile("critique.schema.json", Schema)
	if err != nil {
		panic(err)
	}
	return s
}

// Parse validates a model answer against Schema and decodes it.
func Parse(answer string) (*Judgment, error) {
	var j Judgment
	if err := decodeValid(compiled(), "critique", answer, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// decodeValid checks answer against a compiled schema (named what in
// errors) and decodes it into out.
func decodeValid(s *jsonschema.Schema, what, answer string, out any) error {
	answer = strings.TrimSpace(answer)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(answer)))
	if err != nil {
		return fmt.Errorf("the answer is not JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("the answer does not match the %s schema: %s", what, strings.Join(strings.Fields(err.Error()), " "))
	}
	if err := json.Unmarshal([]byte(answer), out); err != nil {
		return fmt.Errorf("the answer does not decode: %v", err)
	}
	return nil
}
