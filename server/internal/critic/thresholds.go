package critic

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
)

// Thresholds decide the verdict: every category must reach its minimum
// (0-10) and the overall score (0-100) must reach Overall.
type Thresholds struct {
	Category map[string]float64 `json:"category"`
	Overall  float64            `json:"overall"`
	// Weights weigh the categories in the overall score (1 each by default).
	Weights map[string]float64 `json:"weights"`
}

// DefaultThresholds apply when the contract has no Thresholds section.
func DefaultThresholds() Thresholds {
	t := Thresholds{Category: map[string]float64{}, Weights: map[string]float64{}, Overall: 70}
	for _, c := range Categories {
		t.Category[c], t.Weights[c] = 6, 1
	}
	return t
}

// SectionName is the contract section the thresholds are read from.
const SectionName = "Thresholds"

var thresholdLine = regexp.MustCompile(`^\s*(?:[-*]\s*)?(weight\s+)?([a-z_ ]+?)\s*[:=]\s*([0-9.]+)\s*$`)

// ParseThresholds reads a Thresholds section's lines:
//
//   - technical_depth: 6
//   - overall: 70
//   - weight code_quality: 2
func ParseThresholds(text string) (Thresholds, error) {
	t := DefaultThresholds()
	known := map[string]bool{"overall": true}
	for _, c := range Categories {
		known[c] = true
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		m := thresholdLine.FindStringSubmatch(strings.ToLower(line))
		if m == nil {
			return t, fmt.Errorf("line %d: %q is not `category: number` (categories: %s, overall)", i+1, strings.TrimSpace(line), strings.Join(Categories, ", "))
		}
		key := strings.ReplaceAll(strings.TrimSpace(m[2]), " ", "_")
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil || !known[key] || (m[1] != "" && key == "overall") {
			return t, fmt.Errorf("line %d: unknown threshold %q (categories: %s, overall)", i+1, strings.TrimSpace(line), strings.Join(Categories, ", "))
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

// ContractThresholds reads the Thresholds section of a stage contract, or
// the defaults when it has none.
func ContractThresholds(c *contract.Contract) (Thresholds, error) {
	for _, s := range c.Sections {
		if strings.EqualFold(strings.TrimSpace(s.Name), SectionName) {
			t, err := ParseThresholds(s.Text)
			if err != nil {
				return t, fmt.Errorf("%s, ## %s: %w", c.File, SectionName, err)
			}
			return t, nil
		}
	}
	return DefaultThresholds(), nil
}
