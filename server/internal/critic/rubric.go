package critic

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/schemas"
)

// RubricSchema is the JSON Schema of the answer to one rubric criterion.
//
//go:embed rubric.schema.json
var RubricSchema []byte

// rubricCompiled is RubricSchema compiled, on first use.
var rubricCompiled = sync.OnceValue(mustCompileRubric)

func mustCompileRubric() *jsonschema.Schema {
	s, err := schemas.Compile("rubric.schema.json", RubricSchema)
	if err != nil {
		panic(err)
	}
	return s
}

// RubricVerdict is one criterion judged: the model's score and reason,
// and the pass decision computed here from the threshold.
type RubricVerdict struct {
	Criterion string  `json:"criterion"`
	Score     int     `json:"score"`
	Threshold float64 `json:"threshold"`
	Pass      bool    `json:"pass"`
	Reason    string  `json:"reason"`
	// Cut says the text was longer than one call takes and only its start
	// was judged.
	Cut bool `json:"cut,omitempty"`
}

const rubricSystem = `You are a strict reviewer of the output of one step of a writing pipeline. You judge the output against one criterion and answer with one JSON object that matches the schema you are given, nothing else.
score: from 0 (the output does not meet the criterion at all) to 10 (it meets it fully, with nothing to point at). reason: one sentence that names the evidence in the output for the score.
Judge only the criterion given, not the output's other qualities. Deduct only for problems you can point to.`

// JudgeRubric asks the model how well text meets criterion and decides in
// code whether the score reaches threshold (0-10). task, when not empty,
// is what the step was asked to do, so the judge reads the output in its
// context.
func (c *Critic) JudgeRubric(ctx context.Context, text, criterion, task string, threshold float64) (*RubricVerdict, error) {
	limit := c.ChunkChars
	if limit <= 0 {
		limit = DefaultChunkChars
	}
	v := &RubricVerdict{Criterion: criterion, Threshold: threshold}
	if len(text) > limit {
		text, v.Cut = cut(text, limit)[0], true
	}
	var user strings.Builder
	if strings.TrimSpace(task) != "" {
		user.WriteString("The step was asked to do this:\n<task>\n" + strings.TrimSpace(task) + "\n</task>\n\n")
	}
	user.WriteString("Criterion: " + strings.TrimSpace(criterion) + "\n\n")
	if v.Cut {
		user.WriteString("The output is long; this is its beginning.\n\n")
	}
	user.WriteString("<output>\n" + text + "\n</output>\n")
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: rubricSystem}, {Role: llm.RoleUser, Content: user.String()}}
	cfg := agent.Config{Stage: c.stageName() + " rubric", Model: c.Model, Temperature: c.Temperature, Seed: c.Seed, NumCtx: c.NumCtx, Format: json.RawMessage(RubricSchema)}
	var j rubricAnswer
	err := c.ask(ctx, msgs, cfg, func(answer string) (err error) {
		j, err = parseRubric(answer)
		return err
	})
	var inv *invalidError
	if errors.As(err, &inv) {
		return nil, fault.ModelFailed(fmt.Sprintf("the judge's answer for the rubric %q was not valid, and again after one retry: %v", criterion, inv.err),
			"run it again, or use a judge model that follows structured output (format) more reliably").Because(inv.err)
	}
	if err != nil {
		return nil, err
	}
	v.Score, v.Reason = j.Score, j.Reason
	v.Pass = float64(v.Score) >= threshold
	return v, nil
}

type rubricAnswer struct {
	Score  int    `json:"score"`
	Reason string `json:"reason"`
}

func parseRubric(answer string) (rubricAnswer, error) {
	var j rubricAnswer
	err := decodeValid(rubricCompiled(), "rubric", answer, &j)
	return j, err
}
