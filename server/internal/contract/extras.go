package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/suggest"
)

// keyValue matches "key: value".
var keyValue = regexp.MustCompile(`^\s*([A-Za-z_][\w\-]*)\s*[:=]\s*(.*?)\s*$`)

// modelKeys are the settings a Model section may hold.
var modelKeys = []string{"model", "temperature", "num_ctx", "max_output", "think", "format"}

// A Model section uses icm's `key: value` grammar only where its lines do:
// a template's own prose under the same heading is kept and shown.
func (p *parser) model(s markdown.Section) {
	m := &Model{Range: s.Range}
	p.c.Model = m
	text := 0
	for _, l := range entries(s) {
		kv := keyValue.FindStringSubmatchIndex(l.Text)
		if kv == nil {
			text++
			continue
		}
		key := strings.ToLower(strings.ReplaceAll(l.Text[kv[2]:kv[3]], "-", "_"))
		val := strings.Trim(l.Text[kv[4]:kv[5]], "`\"")
		vr := l.Sub(kv[4], kv[5]-kv[4])
		bad := func(want string) {
			p.add(vr, Error, CodeBadModel, fmt.Sprintf("%s: %q is not %s", key, val, want))
		}
		switch key {
		case "model", "name", "models":
			var names []string
			for _, name := range strings.Split(val, ",") {
				if name = strings.TrimSpace(name); name != "" {
					names = append(names, name)
				}
			}
			if strings.ContainsAny(strings.Join(names, ","), " \t") {
				text++ // "Model: the largest one you have" is advice, not a name
				continue
			}
			m.Models = append(m.Models, names...)
			if len(m.Models) == 0 {
				bad("a model name")
			}
		case "temperature":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || !(f >= 0 && f <= config.MaxTemperature) { // NaN fails both
				bad("a number from 0 to 2")
				continue
			}
			m.Temperature = &f
		case "num_ctx", "context":
			n, err := strconv.Atoi(val)
			if err != nil || n < 256 || n > config.MaxWindow {
				bad(fmt.Sprintf("a window size from 256 to %d tokens", config.MaxWindow))
				continue
			}
			m.NumCtx = n
		case "max_output", "num_predict":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > config.MaxWindow {
				bad(fmt.Sprintf("a number of tokens from 1 to %d", config.MaxWindow))
				continue
			}
			m.MaxOutput = n
		case "think", "thinking":
			b, ok := parseBool(val)
			if !ok {
				bad("true or false")
				continue
			}
			m.Think = &b
		case "format":
			if strings.ContainsAny(val, " \t") {
				text++ // "Format: Markdown with headings" describes the output
				continue
			}
			m.Format = val
			m.FormatRange = vr
			if val == "" {
				bad("`json` or a JSON Schema file")
			}
		default:
			if near := suggest.Nearest(key, modelKeys); near != "" {
				p.c.Findings = append(p.c.Findings, Finding{File: p.c.File, Range: l.Sub(kv[2], kv[3]-kv[2]), Severity: Warning, Code: CodeBadModel,
					Data:    map[string]string{"suggest": near},
					Message: fmt.Sprintf("unknown model setting %q, so it is not applied: did you mean %q?", key, near)})
				continue
			}
			text++
		}
	}
	if text > 0 {
		p.add(s.Heading.TextRange, Info, CodeKeptAsText,
			"lines of the Model section that are not icm settings (`key: value` with "+strings.Join(modelKeys, ", ")+") are kept and shown")
	}
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

// A Script section is a command (a fenced block, or one line); prose under
// that heading (a video script, say) is kept and shown, never run.
func (p *parser) script(s markdown.Section) {
	sc := &Script{Range: s.Range}
	var cmdLines []string
	fenced := false
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockCode:
			fenced = true
			if sc.Command == "" {
				sc.Command = strings.TrimRight(lf(b.Code.Text), "\n")
			}
		case markdown.BlockList, markdown.BlockParagraph:
			for _, l := range b.Lines {
				t := strings.TrimSpace(l.Text)
				if kv := keyValue.FindStringSubmatch(t); kv != nil && strings.EqualFold(kv[1], "timeout") {
					d, err := time.ParseDuration(strings.Trim(kv[2], "`"))
					if err != nil || d <= 0 {
						p.add(l.Range, Error, CodeBadScript, fmt.Sprintf("timeout %q is not a duration like `60s` or `5m`", kv[2]))
						continue
					}
					sc.TimeoutSeconds = d.Seconds()
					continue
				}
				cmdLines = append(cmdLines, strings.Trim(t, "`"))
			}
		}
	}
	if !fenced && prose(cmdLines) {
		p.add(s.Heading.TextRange, Info, CodeKeptAsText,
			"the Script section reads as text, not a command; it is kept and shown, never run (put a command in a fenced block)")
		return
	}
	if sc.Command == "" && len(cmdLines) > 0 {
		sc.Command = strings.Join(cmdLines, "\n")
	}
	if strings.TrimSpace(sc.Command) == "" {
		// No command to run: the stage is not a script stage.
		p.add(s.Heading.TextRange, Error, CodeBadScript, "the Script section has no command, so icm runs none; put it in a fenced block or on one line")
		return
	}
	p.c.Script = sc
	// Setup-time variables are filled here as everywhere else in the
	// contract, so the command that runs is the one icm trust lists.
	sc.Command, _ = p.c.vars.Expand(sc.Command)
}

// prose reports whether the lines of a Script section without a fenced
// block are sentences rather than a command: a line of several words that
// ends like a sentence.
func prose(lines []string) bool {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if len(strings.Fields(l)) > 3 && strings.ContainsAny(l[len(l)-1:], ".!?:") {
			return true
		}
	}
	return false
}

func (p *parser) gate(s markdown.Section) {
	g := &Gate{Range: s.Range}
	p.c.Gate = g
	lines := entries(s)
	if len(lines) == 0 {
		p.add(s.Heading.TextRange, Error, CodeBadGate, "the Gate section is empty; write `required` or `auto`")
		return
	}
	switch v := strings.ToLower(strings.Trim(strings.TrimSpace(lines[0].Text), "`.")); v {
	case "required", "explicit", "manual":
	case "auto", "automatic":
		g.Auto = true
	default:
		var texts []string
		for _, l := range lines {
			texts = append(texts, l.Text)
		}
		if prose(texts) || len(strings.Fields(v)) > 2 {
			// Someone else's review gate, in words (a sentence, or a few
			// words without a stop): kept and shown; the gate stays
			// required.
			p.add(s.Heading.TextRange, Info, CodeKeptAsText,
				"the Gate section reads as text, not `required` or `auto`: it is kept and shown, and the gate stays required (a person approves)")
			return
		}
		p.add(lines[0].Range, Error, CodeBadGate, fmt.Sprintf("gate %q: write `required` (a person approves) or `auto` (approved when every Verify check passes)", v))
	}
}
