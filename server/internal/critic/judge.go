package critic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// DefaultChunkChars is how much article one call judges (about 6,000
// tokens of English), leaving room for the rubric and the answer in a
// 16k window.
const DefaultChunkChars = 24000

// Critic judges articles with a model.
type Critic struct {
	Client llm.Client
	Model  string
	// Stage names the calls in errors and traces.
	Stage string
	// Rubric is extra guidance for the judge (the workspace's rubric file).
	Rubric string
	// ChunkChars bounds one call's part of the article (DefaultChunkChars when 0).
	ChunkChars  int
	Temperature *float64
	// Seed, when set, goes with every call (stage tests fix one per repeat).
	Seed   *int
	NumCtx int
	// Observe receives the model calls' events (for the run's trace).
	Observe func(agent.Event)
}

const judgeSystem = `You are a strict technical reviewer. You judge a technical article (or one part of it) and answer with one JSON object that matches the schema you are given, nothing else.

Score each category from 0 (unusable) to 10 (excellent) and give a one-sentence reason:
- technical_depth: correct, specific and deep enough for the audience; no hand-waving.
- code_quality: the code blocks are correct, idiomatic, runnable and explained.
- structure_clarity: the parts follow a clear order, headings say what they hold, the prose is plain.
- citation_fidelity: claims that need a source cite one, and the cited sources say what the text claims.

Deduct only for problems you can point to. specific_critiques name the place and the problem; required_revisions say what to change, one change per item. Use empty lists when there is nothing to say.`

// Judge judges the whole article, in chunks when it is long, and decides.
func (c *Critic) Judge(ctx context.Context, article string, t contract.Thresholds) (*Verdict, error) {
	limit := c.ChunkChars
	if limit <= 0 {
		limit = DefaultChunkChars
	}
	chunks := Chunks(article, limit)
	outline := Outline(article)
	var parts []part
	for i, ch := range chunks {
		j, err := c.judgeChunk(ctx, ch, i+1, len(chunks), outline)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part{j: j, weight: float64(len(ch.Text)), label: fmt.Sprintf("part %d", i+1)})
	}
	return Decide(parts, t), nil
}

func (c *Critic) judgeChunk(ctx context.Context, ch Chunk, n, of int, outline []string) (*Judgment, error) {
	system := judgeSystem
	if strings.TrimSpace(c.Rubric) != "" {
		system += "\n\n# Rubric of this workspace\n\n" + strings.TrimSpace(c.Rubric)
	}
	var user strings.Builder
	if of > 1 {
		fmt.Fprintf(&user, "This is part %d of %d of the article (%s). Judge this part; the outline of the whole article is given so you can judge how the part fits.\n\n", n, of, ch.Label)
	} else {
		user.WriteString("Judge the whole article below.\n\n")
	}
	user.WriteString("Outline of the whole article:\n")
	for _, h := range outline {
		user.WriteString("- " + h + "\n")
	}
	user.WriteString("\n<article>\n" + ch.Text + "\n</article>\n")
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user.String()}}
	cfg := agent.Config{Stage: fmt.Sprintf("%s critique %d/%d", c.stageName(), n, of), Model: c.Model, Temperature: c.Temperature, Seed: c.Seed, NumCtx: c.NumCtx, Format: json.RawMessage(Schema)}
	var j *Judgment
	err := c.ask(ctx, msgs, cfg, func(answer string) (err error) {
		j, err = Parse(answer)
		return err
	})
	var inv *invalidError
	if errors.As(err, &inv) {
		return nil, &InvalidAnswerError{Part: n, Parts: of, Err: inv.err}
	}
	return j, err
}

// invalidError says the model's answer failed parse twice.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }

// ask makes a structured-output call and parses the answer; an answer that
// does not parse (or was cut off) is asked for once more, told what was
// wrong. A second bad answer is an *invalidError.
func (c *Critic) ask(ctx context.Context, msgs []llm.Message, cfg agent.Config, parse func(string) error) error {
	var lastErr error
	for attempt := 1; attempt <= 2; attempt++ {
		res, err := agent.Run(ctx, c.Client, nil, msgs, cfg, c.Observe)
		if err != nil {
			return err
		}
		perr := parse(res.Output)
		if perr == nil && !res.Incomplete {
			return nil
		}
		if res.Incomplete {
			perr = fmt.Errorf("the answer was cut off at the output limit")
		}
		lastErr = perr
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: res.Raw},
			llm.Message{Role: llm.RoleUser, Content: "That answer was not valid: " + perr.Error() + ". Answer again with only the JSON object, matching the schema exactly."})
	}
	return &invalidError{err: lastErr}
}

func (c *Critic) stageName() string {
	if c.Stage == "" {
		return "critic"
	}
	return c.Stage
}

// InvalidAnswerError says the model failed the schema twice for one part.
type InvalidAnswerError struct {
	Part, Parts int
	Err         error
}

func (e *InvalidAnswerError) Error() string {
	return fmt.Sprintf("the critic's answer for part %d of %d was not valid, and again after one retry: %v", e.Part, e.Parts, e.Err)
}

// Hint says what to do.
func (e *InvalidAnswerError) Hint() string {
	return "run the stage again, or use a model that follows structured output (format) more reliably"
}

// Fault is a model call that failed: the answer never fit the schema.
func (e *InvalidAnswerError) Fault() *fault.Error { return fault.ModelFailed(e.Error(), e.Hint()) }

// Chunk is one part of an article: whole sections when they fit.
type Chunk struct {
	Text  string
	Label string
}

// Chunks cuts an article into parts of at most limit characters, at
// `##` section boundaries; a section longer than limit is cut at blank
// lines (or, failing those, at line ends).
func Chunks(article string, limit int) []Chunk {
	src := []byte(article)
	secs := markdown.Parse(src).Sections(2)
	type piece struct{ text, title string }
	var pieces []piece
	start := 0
	if len(secs) > 0 {
		start = secs[0].Range.Start
		if start > 0 {
			pieces = append(pieces, piece{article[:start], "introduction"})
		}
		for i, s := range secs {
			end := len(article)
			if i+1 < len(secs) {
				end = secs[i+1].Range.Start
			}
			pieces = append(pieces, piece{article[s.Range.Start:end], s.Heading.Text})
		}
	} else {
		pieces = append(pieces, piece{article, "the article"})
	}
	var split []piece
	for _, p := range pieces {
		for _, t := range cut(p.text, limit) {
			split = append(split, piece{t, p.title})
		}
	}
	var out []Chunk
	var cur strings.Builder
	var titles []string
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, Chunk{Text: cur.String(), Label: labelOf(titles)})
			cur.Reset()
			titles = nil
		}
	}
	for _, p := range split {
		if cur.Len() > 0 && cur.Len()+len(p.text) > limit {
			flush()
		}
		cur.WriteString(p.text)
		if len(titles) == 0 || titles[len(titles)-1] != p.title {
			titles = append(titles, p.title)
		}
	}
	flush()
	return out
}

func labelOf(titles []string) string {
	if len(titles) == 1 {
		return titles[0]
	}
	return fmt.Sprintf("%s to %s", titles[0], titles[len(titles)-1])
}

// cut splits text into pieces of at most limit bytes at blank lines,
// else at line ends, else anywhere (on a rune boundary).
func cut(text string, limit int) []string {
	var out []string
	for len(text) > limit {
		end := strings.LastIndex(text[:limit], "\n\n") + 1
		if end <= 0 {
			end = strings.LastIndex(text[:limit], "\n") + 1
		}
		if end <= 0 {
			end = limit
			for end > 1 && !utf8.RuneStart(text[end]) {
				end--
			}
		}
		out = append(out, text[:end])
		text = text[end:]
	}
	return append(out, text)
}

// Outline lists the article's headings (levels 1 to 3), indented.
func Outline(article string) []string {
	var out []string
	for _, h := range markdown.Parse([]byte(article)).Headings {
		if h.Level <= 3 {
			out = append(out, strings.Repeat("  ", max(h.Level-1, 0))+h.Text)
		}
	}
	return out
}
