// Package research runs research in rounds: each round the model reads
// what has been found so far and names what is still missing as search
// queries (structured output); code runs each query through the search
// tool, reads the best new results with the reader tool and appends the
// findings, with their sources, to the research file. It stops after the
// last round or when the model names nothing new. The model proposes what
// to look for; code decides how much is looked for and keeps the record.
package research

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
)

// QueriesSchema is the JSON Schema of the model's next_queries answer.
//
//go:embed queries.schema.json
var QueriesSchema []byte

// Query is one search the model proposes.
type Query struct {
	Query  string `json:"query"`
	Reason string `json:"reason"`
}

// Finding is what reading one result for a query gave.
type Finding struct {
	Query, Reason, URL, Title, Summary string
}

// Round is one round's queries and findings.
type Round struct {
	N        int
	Queries  []Query
	Findings []Finding
}

// Tools are the search and reader tools (a stage's tool session).
type Tools interface {
	Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error)
}

// Researcher runs the rounds.
type Researcher struct {
	Client llm.Client
	Model  string
	Tools  Tools
	// Search and Read are the exposed tool names (search-server_search,
	// browser-server_summarize).
	Search, Read string
	// Rounds, Queries (per round) and Results (read per query) bound the work.
	Rounds, Queries, Results int
	Stage                    string
	// Observe receives model and tool events (for the run's trace).
	Observe func(agent.Event)
}

// Run does the rounds. system and user are the stage's assembled context
// (identity, rules, the Process and the sources); the research so far is
// appended to the user text each round. It returns the rounds done.
func (r *Researcher) Run(ctx context.Context, system, user string) ([]Round, error) {
	var rounds []Round
	asked := map[string]bool{}
	read := map[string]bool{}
	for n := 1; n <= max(r.Rounds, 1); n++ {
		qs, err := r.nextQueries(ctx, system, user, rounds, n)
		if err != nil {
			return rounds, err
		}
		var fresh []Query
		for _, q := range qs {
			k := strings.ToLower(strings.Join(strings.Fields(q.Query), " "))
			if k == "" || asked[k] || len(fresh) >= max(r.Queries, 1) {
				continue
			}
			asked[k] = true
			fresh = append(fresh, q)
		}
		if len(fresh) == 0 {
			break // nothing new is missing
		}
		round := Round{N: n, Queries: fresh}
		for _, q := range fresh {
			fs, err := r.fill(ctx, q, read)
			if err != nil {
				return rounds, err
			}
			round.Findings = append(round.Findings, fs...)
		}
		rounds = append(rounds, round)
	}
	return rounds, nil
}

const queriesPrompt = `## Round %d of %d: what is still missing?

Compare the sources and the research so far with what the article needs. Name at most %d web searches that would fill the most important gaps, each with the reason it matters. Do not repeat an earlier search. If nothing important is missing, answer with an empty list.

Answer with JSON only: {"queries": [{"query": "...", "reason": "..."}]}`

func (r *Researcher) nextQueries(ctx context.Context, system, user string, rounds []Round, n int) ([]Query, error) {
	var b strings.Builder
	b.WriteString(user)
	b.WriteString("\n\n## Research so far\n\n")
	if len(rounds) == 0 {
		b.WriteString("Nothing yet: this is the first round.\n")
	} else {
		b.WriteString(Markdown("", rounds))
	}
	fmt.Fprintf(&b, "\n\n"+queriesPrompt, n, r.Rounds, max(r.Queries, 1))
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: b.String()}}
	cfg := agent.Config{Stage: fmt.Sprintf("%s next_queries %d", r.Stage, n), Model: r.Model, Format: json.RawMessage(QueriesSchema)}
	for attempt := 1; ; attempt++ {
		res, err := agent.Run(ctx, r.Client, nil, msgs, cfg, r.Observe)
		if err != nil {
			return nil, err
		}
		var out struct {
			Queries []Query `json:"queries"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(res.Output)), &out); err == nil {
			return out.Queries, nil
		} else if attempt == 2 {
			return nil, fault.ModelFailed(fmt.Sprintf("%s: the model's list of next queries for round %d was not valid JSON twice: %v", r.Stage, n, err),
				"run it again, or use a model that follows structured output more reliably")
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: res.Raw},
			llm.Message{Role: llm.RoleUser, Content: `That was not valid JSON. Answer with only {"queries": [{"query": "...", "reason": "..."}]}.`})
	}
}

var resultURL = regexp.MustCompile(`(?m)^\s+(https?://\S+)\s*$`)
var resultTitle = regexp.MustCompile(`(?m)^\[(\d+)\] (.*)$`)

// fill searches for q and reads up to Results new result pages.
func (r *Researcher) fill(ctx context.Context, q Query, read map[string]bool) ([]Finding, error) {
	res, err := r.call(ctx, r.Search, map[string]any{"query": q.Query, "max_results": max(r.Results, 1) + 2})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return []Finding{{Query: q.Query, Reason: q.Reason, Summary: "The search failed: " + res.Text}}, nil
	}
	urls := resultURL.FindAllStringSubmatch(res.Text, -1)
	titles := resultTitle.FindAllStringSubmatch(res.Text, -1)
	var out []Finding
	for i, m := range urls {
		if len(out) >= max(r.Results, 1) {
			break
		}
		u := m[1]
		if read[u] {
			continue
		}
		read[u] = true
		f := Finding{Query: q.Query, Reason: q.Reason, URL: u}
		if i < len(titles) {
			f.Title = titles[i][2]
		}
		question := q.Reason
		if question == "" {
			question = q.Query
		}
		page, err := r.call(ctx, r.Read, map[string]any{"url": u, "question": question})
		if err != nil {
			return nil, err
		}
		if page.IsError {
			f.Summary = "(could not be read: " + strings.TrimSpace(page.Text) + ")"
		} else {
			f.Summary = strings.TrimSpace(page.Text)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		out = append(out, Finding{Query: q.Query, Reason: q.Reason, Summary: "No new result to read."})
	}
	return out, nil
}

func (r *Researcher) call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	start := time.Now()
	res, err := r.Tools.Call(ctx, name, args)
	if r.Observe != nil {
		ev := &report.ToolEvent{Name: name, Server: res.Server, Tool: res.Tool, Args: args, ResultSize: res.Size, Truncated: res.Truncated, IsError: res.IsError, Duration: time.Since(start)}
		if ev.ResultSize == 0 {
			ev.ResultSize = len(res.Text)
		}
		if err != nil {
			ev.Err = err.Error()
		}
		r.Observe(agent.Event{Kind: agent.EventTool, Stage: r.Stage, Tool: ev})
	}
	if err != nil {
		return res, fmt.Errorf("%s: the tool %s failed: %w", r.Stage, name, err)
	}
	return res, nil
}

// Markdown writes the rounds as the research file: one `##` section per
// round, one `###` per query, every finding with a Sources line.
func Markdown(title string, rounds []Round) string {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "# %s\n\n", title)
	}
	for _, rd := range rounds {
		qs := make([]string, len(rd.Queries))
		for i, q := range rd.Queries {
			qs[i] = q.Query
		}
		fmt.Fprintf(&b, "## Round %d\n\nQueries: %s\n", rd.N, strings.Join(qs, "; "))
		var urls []string
		for _, f := range rd.Findings {
			heading := f.Query
			if f.Title != "" {
				heading += ": " + f.Title
			}
			fmt.Fprintf(&b, "\n### %s\n\n", heading)
			if f.Reason != "" {
				fmt.Fprintf(&b, "Why: %s\n\n", f.Reason)
			}
			fmt.Fprintf(&b, "%s\n", f.Summary)
			if f.URL != "" {
				fmt.Fprintf(&b, "\nSource: %s\n", f.URL)
				urls = append(urls, f.URL)
			}
		}
		if len(urls) > 0 {
			fmt.Fprintf(&b, "\nSources: %s\n", strings.Join(urls, " "))
		}
		b.WriteString("\n")
	}
	return b.String()
}
