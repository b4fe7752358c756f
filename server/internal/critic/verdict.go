package critic

import (
	"fmt"
	"math"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
)

// CategoryResult is one category's score over the whole article.
type CategoryResult struct {
	// Score is the chunks' scores weighted by their length (0-10).
	Score   float64  `json:"score"`
	Min     float64  `json:"min"`
	OK      bool     `json:"ok"`
	Reasons []string `json:"reasons"`
}

// Verdict is the critic's decision, computed in code.
type Verdict struct {
	Pass bool `json:"pass"`
	// Overall is the weighted mean of the category scores, times ten (0-100).
	Overall    float64                   `json:"overall"`
	Thresholds contract.Thresholds       `json:"thresholds"`
	Categories map[string]CategoryResult `json:"categories"`
	// Failed lists why the article did not pass, one line each.
	Failed            []string `json:"failed,omitempty"`
	SpecificCritiques []string `json:"specific_critiques"`
	RequiredRevisions []string `json:"required_revisions"`
	// Chunks is how many parts the article was judged in.
	Chunks int `json:"chunks"`
	// SendBack records what happened to a failing article (see SendBack).
	SendBack *SendBackResult `json:"send_back,omitempty"`
}

// part is one chunk's judgment and its weight (its length).
type part struct {
	j      *Judgment
	weight float64
	label  string
}

// Decide computes the verdict from the chunks' judgments.
func Decide(parts []part, t contract.Thresholds) *Verdict {
	v := &Verdict{Thresholds: t, Categories: map[string]CategoryResult{}, Chunks: len(parts), SpecificCritiques: []string{}, RequiredRevisions: []string{}}
	var total float64
	for _, p := range parts {
		total += p.weight
	}
	seen := map[string]bool{}
	var sum, weights float64
	for _, c := range contract.CriticCategories {
		var s float64
		cr := CategoryResult{Min: t.Category[c]}
		for _, p := range parts {
			sc := p.j.Scores[c]
			s += float64(sc.Score) * p.weight / total
			r := sc.Reason
			if len(parts) > 1 {
				r = p.label + ": " + r
			}
			cr.Reasons = append(cr.Reasons, r)
		}
		cr.Score = math.Round(s*10) / 10
		cr.OK = cr.Score >= cr.Min
		if !cr.OK {
			v.Failed = append(v.Failed, fmt.Sprintf("%s %.1f is below %.1f", c, cr.Score, cr.Min))
		}
		v.Categories[c] = cr
		w := t.Weights[c]
		sum += cr.Score * w
		weights += w
	}
	if weights > 0 {
		v.Overall = math.Round(sum/weights*100) / 10
	}
	if v.Overall < t.Overall {
		v.Failed = append(v.Failed, fmt.Sprintf("overall %.1f is below %.1f", v.Overall, t.Overall))
	}
	v.Pass = len(v.Failed) == 0
	for _, p := range parts {
		for _, s := range p.j.SpecificCritiques {
			if k := strings.ToLower(strings.TrimSpace(s)); !seen["c"+k] {
				seen["c"+k] = true
				v.SpecificCritiques = append(v.SpecificCritiques, strings.TrimSpace(s))
			}
		}
		for _, s := range p.j.RequiredRevisions {
			if k := strings.ToLower(strings.TrimSpace(s)); !seen["r"+k] {
				seen["r"+k] = true
				v.RequiredRevisions = append(v.RequiredRevisions, strings.TrimSpace(s))
			}
		}
	}
	return v
}

// Markdown is the verdict for a person at the gate.
func (v *Verdict) Markdown() string {
	var b strings.Builder
	verdict := "passes"
	if !v.Pass {
		verdict = "does not pass"
	}
	fmt.Fprintf(&b, "# Critique\n\nThe article %s: overall %.1f of 100 (at least %.0f needed), judged in %d part(s). The scores come from the model; the overall score and the decision are computed from them.\n\n", verdict, v.Overall, v.Thresholds.Overall, v.Chunks)
	b.WriteString("| Category | Score | Minimum | |\n|---|---|---|---|\n")
	for _, c := range contract.CriticCategories {
		cr := v.Categories[c]
		mark := "ok"
		if !cr.OK {
			mark = "**below**"
		}
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %s |\n", strings.ReplaceAll(c, "_", " "), cr.Score, cr.Min, mark)
	}
	b.WriteString("\n## Reasons\n")
	for _, c := range contract.CriticCategories {
		fmt.Fprintf(&b, "\n- **%s**: %s", strings.ReplaceAll(c, "_", " "), strings.Join(v.Categories[c].Reasons, " "))
	}
	b.WriteString("\n\n## Specific critiques\n\n")
	list(&b, v.SpecificCritiques)
	b.WriteString("\n## Required revisions\n\n")
	list(&b, v.RequiredRevisions)
	if v.SendBack != nil {
		fmt.Fprintf(&b, "\n## Sent back\n\n%s\n", v.SendBack.Message)
	}
	return b.String()
}

func list(b *strings.Builder, items []string) {
	if len(items) == 0 {
		b.WriteString("None.\n")
		return
	}
	for _, s := range items {
		fmt.Fprintf(b, "- %s\n", s)
	}
}
