package contract

import "strings"

// VerifyProse is the part of a Verify section written for a reader rather
// than in icm's check grammar: its lines, less the `- check` lines icm
// runs ("" when every line is a check).
func VerifyProse(text string) string {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if item, ok := strings.CutPrefix(t, "- "); ok && checkLine(item) {
			continue
		}
		if item, ok := strings.CutPrefix(t, "* "); ok && checkLine(item) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// MachineSection reports whether a section is one icm consumes itself
// and never shows the model: Tools, Model, For each, Script, Gate and
// Thresholds. (Inputs and Outputs are shown rewritten; Verify shows its
// prose.)
func MachineSection(kind string) bool {
	switch kind {
	case KindTools, KindModel, KindForEach, KindScript, KindGate, KindThresholds:
		return true
	}
	return false
}

// ProseSection reports whether one of icm's own sections holds someone
// else's prose rather than icm's grammar, so the model reads it as
// written: a Script section that is text (a video script), a Gate section
// in words (a review gate). The other machine sections are always icm's.
func (c *Contract) ProseSection(s Section) bool {
	switch s.Kind {
	case KindScript:
		return c.Script == nil && strings.TrimSpace(s.Text) != ""
	case KindGate:
		first := ""
		for _, l := range strings.Split(s.Text, "\n") {
			if first = strings.TrimSpace(l); first != "" {
				break
			}
		}
		switch strings.ToLower(strings.Trim(strings.TrimLeft(first, "-* "), "`.")) {
		case "", "required", "explicit", "manual", "auto", "automatic":
			return false
		}
		return true
	}
	return false
}

// ModelProse is the part of a Model section written for a reader rather
// than as icm's settings: its lines, less the `key: value` lines icm
// reads ("" when every line is one). "Model: the largest you have" is
// advice, and stays.
func ModelProse(text string) string {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		for _, bullet := range []string{"- ", "* "} {
			t = strings.TrimPrefix(t, bullet)
		}
		if modelSetting(t) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// modelSetting reports whether a line is one of the Model section's
// settings, as the parser takes them.
func modelSetting(line string) bool {
	kv := keyValue.FindStringSubmatch(line)
	if kv == nil {
		return false
	}
	val := strings.Trim(kv[2], "`\"")
	switch strings.ToLower(strings.ReplaceAll(kv[1], "-", "_")) {
	case "model", "name", "models":
		var names []string
		for _, n := range strings.Split(val, ",") {
			names = append(names, strings.TrimSpace(n))
		}
		return !strings.ContainsAny(strings.Join(names, ","), " \t")
	case "format":
		return !strings.ContainsAny(val, " \t")
	case "temperature", "num_ctx", "context", "max_output", "num_predict", "think", "thinking":
		return true
	}
	return false
}
