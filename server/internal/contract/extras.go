package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// keyValue matches "key: value".
var keyValue = regexp.MustCompile(`^\s*([A-Za-z_][\w\-]*)\s*[:=]\s*(.*?)\s*$`)

func (p *parser) model(s markdown.Section) {
	m := &Model{Range: s.Range}
	p.c.Model = m
	for _, l := range entries(s) {
		kv := keyValue.FindStringSubmatchIndex(l.Text)
		if kv == nil {
			p.add(l.Range, Error, CodeBadModel, fmt.Sprintf("%q is not a `key: value` line", strings.TrimSpace(l.Text)))
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
			for _, name := range strings.Split(val, ",") {
				if name = strings.TrimSpace(name); name != "" {
					m.Models = append(m.Models, name)
				}
			}
			if len(m.Models) == 0 {
				bad("a model name")
			}
		case "temperature":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || f < 0 || f > 2 {
				bad("a number from 0 to 2")
				continue
			}
			m.Temperature = &f
		case "num_ctx", "context":
			n, err := strconv.Atoi(val)
			if err != nil || n < 256 {
				bad("a window size of 256 tokens or more")
				continue
			}
			m.NumCtx = n
		case "max_output", "num_predict":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				bad("a positive number of tokens")
				continue
			}
			m.MaxOutput = n
		case "think", "thinking":
			b, err := strconv.ParseBool(val)
			if err != nil {
				bad("true or false")
				continue
			}
			m.Think = &b
		case "format":
			m.Format = val
			m.FormatRange = vr
			if val == "" {
				bad("`json` or a JSON Schema file")
			}
		default:
			p.add(l.Sub(kv[2], kv[3]-kv[2]), Warning, CodeBadModel,
				fmt.Sprintf("unknown model setting %q; known: model, temperature, num_ctx, max_output, think, format", key))
		}
	}
}

func (p *parser) verify(s markdown.Section) {
	lines := entries(s)
	if len(lines) == 0 {
		p.add(s.Heading.TextRange, Error, CodeEmptySection, "the Verify section is empty; list checks such as `- non-empty`")
		return
	}
	for _, l := range lines {
		c, err := ParseCheck(l.Text)
		if err != nil {
			p.add(l.Range, Error, CodeBadVerify, err.Error())
			continue
		}
		c.Range = l.Range
		p.c.Verify = append(p.c.Verify, c)
	}
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

func (p *parser) script(s markdown.Section) {
	sc := &Script{Range: s.Range}
	p.c.Script = sc
	var cmdLines []string
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockCode:
			if sc.Command == "" {
				sc.Command = strings.TrimRight(b.Code.Text, "\n")
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
	if sc.Command == "" && len(cmdLines) > 0 {
		sc.Command = strings.Join(cmdLines, "\n")
	}
	if strings.TrimSpace(sc.Command) == "" {
		p.add(s.Heading.TextRange, Error, CodeBadScript, "the Script section has no command; put it in a fenced block or on one line")
	}
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
		p.add(lines[0].Range, Error, CodeBadGate, fmt.Sprintf("gate %q: write `required` (a person approves) or `auto` (approved when every Verify check passes)", v))
	}
}
