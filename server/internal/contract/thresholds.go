package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The Thresholds section of a critic stage is parsed here, beside the rest
// of the contract, so that `icm check` reports a bad one without linking
// the critic (and with it the agent loop and the model client).

// CriticCategories are the categories a critic stage judges, in report
// order: the names a Thresholds section may set.
var CriticCategories = []string{"technical_depth", "code_quality", "structure_clarity", "citation_fidelity"}

// Thresholds decide a critic's verdict: every category must reach its
// minimum (0-10) and the overall score (0-100) must reach Overall.
type Thresholds struct {
	Category map[string]float64 `json:"category"`
	Overall  float64            `json:"overall"`
	// Weights weigh the categories in the overall score (1 each by default).
	Weights map[string]float64 `json:"weights"`
}

// DefaultThresholds apply when the contract has no Thresholds section.
func DefaultThresholds() Thresholds {
	t := Thresholds{Category: map[string]float64{}, Weights: map[string]float64{}, Overall: 70}
	for _, c := range CriticCategories {
		t.Category[c], t.Weights[c] = 6, 1
	}
	return t
}

// ThresholdsSection is the contract section the thresholds are read from.
const ThresholdsSection = "Thresholds"

var thresholdLine = regexp.MustCompile(`^\s*(?:[-*]\s*)?(weight\s+)?([a-z_ ]+?)\s*[:=]\s*([0-9.]+)\s*$`)

// ParseThresholds reads a Thresholds section's lines:
//
//   - technical_depth: 6
//   - overall: 70
//   - weight code_quality: 2
func ParseThresholds(text string) (Thresholds, error) {
	t := DefaultThresholds()
	known := map[string]bool{"overall": true}
	for _, c := range CriticCategories {
		known[c] = true
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		m := thresholdLine.FindStringSubmatch(strings.ToLower(line))
		if m == nil {
			return t, fmt.Errorf("line %d: %q is not `category: number` (categories: %s, overall)", i+1, strings.TrimSpace(line), strings.Join(CriticCategories, ", "))
		}
		key := strings.ReplaceAll(strings.TrimSpace(m[2]), " ", "_")
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil || !known[key] || (m[1] != "" && key == "overall") {
			return t, fmt.Errorf("line %d: unknown threshold %q (categories: %s, overall)", i+1, strings.TrimSpace(line), strings.Join(CriticCategories, ", "))
		}
		switch {
		case m[1] != "":
			t.Weights[key] = v
		case key == "overall":
			if v > 100 {
				return t, fmt.Errorf("line %d: overall is a score from 0 to 100", i+1)
			}
			t.Overall = v
		default:
			if v > 10 {
				return t, fmt.Errorf("line %d: %s is a score from 0 to 10", i+1, key)
			}
			t.Category[key] = v
		}
	}
	return t, nil
}

// Thresholds reads the contract's Thresholds section, or the defaults
// when it has none.
func (c *Contract) Thresholds() (Thresholds, error) {
	for _, s := range c.Sections {
		if strings.EqualFold(strings.TrimSpace(s.Name), ThresholdsSection) {
			t, err := ParseThresholds(s.Text)
			if err != nil {
				return t, fmt.Errorf("%s, ## %s: %w", c.File, ThresholdsSection, err)
			}
			return t, nil
		}
	}
	return DefaultThresholds(), nil
}
