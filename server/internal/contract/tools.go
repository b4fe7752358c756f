package contract

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// toolName is what a server or tool name may hold.
var toolName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]*$`)

func (p *parser) tools(s markdown.Section) {
	t := &Tools{Range: s.Range}
	p.c.Tools = t
	lines := entries(s)
	if len(lines) == 0 {
		p.add(s.Heading.TextRange, Error, CodeEmptySection, "the Tools section is empty; write `none`, or one `server: tool, tool` line per MCP server")
		return
	}
	for _, l := range lines {
		text := strings.TrimSpace(l.Text)
		if strings.EqualFold(strings.Trim(text, ". `"), "none") {
			t.None = true
			continue
		}
		p.toolLine(t, l)
	}
	if t.None && len(t.Servers) > 0 {
		p.add(s.Heading.TextRange, Error, CodeBadTools, "the Tools section says `none` and also names servers; keep one")
	}
}

func (p *parser) toolLine(t *Tools, l markdown.Line) {
	colon := strings.Index(l.Text, ":")
	if colon < 0 {
		p.add(l.Range, Error, CodeBadTools,
			fmt.Sprintf("%q is not a tools line; write `server: tool, tool`, `server: *` or `none`", strings.TrimSpace(l.Text)))
		return
	}
	server, serverAt := trimAt(l.Text[:colon], 0)
	server, serverAt = unticks(server, serverAt)
	ts := ToolServer{Server: server, ServerRange: l.Sub(serverAt, len(server)), Range: l.Range}
	if !toolName.MatchString(server) {
		p.add(ts.ServerRange, Error, CodeBadTools, fmt.Sprintf("%q is not a server name", server))
		return
	}
	rest := l.Text[colon+1:]
	off := colon + 1
	for _, part := range strings.Split(rest, ",") {
		name, at := trimAt(part, off)
		name, at = unticks(name, at)
		off += len(part) + 1
		switch {
		case name == "":
			continue
		case name == "*":
			ts.All = true
		case !toolName.MatchString(name):
			p.add(l.Sub(at, len(name)), Error, CodeBadTools, fmt.Sprintf("%q is not a tool name", name))
		default:
			ts.Tools = append(ts.Tools, ToolName{Name: name, Range: l.Sub(at, len(name))})
		}
	}
	if !ts.All && len(ts.Tools) == 0 {
		p.add(l.Range, Error, CodeBadTools, fmt.Sprintf("no tools named for %s; list them (`%s: a, b`) or allow all (`%s: *`)", server, server, server))
		return
	}
	t.Servers = append(t.Servers, ts)
}

// trimAt trims spaces from s, whose first byte sits at offset off of its
// line, and returns the trimmed text with its new offset.
func trimAt(s string, off int) (string, int) {
	left := strings.TrimLeft(s, " \t")
	return strings.TrimRight(left, " \t"), off + len(s) - len(left)
}

func unticks(s string, off int) (string, int) {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return s[1 : len(s)-1], off + 1
	}
	return s, off
}

// forEachLine matches "ITEM in PATH".
var forEachLine = regexp.MustCompile("^\\s*`?([A-Za-z][\\w\\- ]*?)`?\\s+in\\s+`?([^`\\s]+)`?\\s*$")

func (p *parser) forEach(s markdown.Section) {
	lines := entries(s)
	if len(lines) == 0 {
		p.add(s.Heading.TextRange, Error, CodeBadForEach, "the For each section is empty; write `module in ../03-outline/output/outline.md`")
		return
	}
	l := lines[0]
	m := forEachLine.FindStringSubmatchIndex(l.Text)
	if m == nil {
		p.add(l.Range, Error, CodeBadForEach,
			fmt.Sprintf("%q is not a For each line; write `ITEM in PATH`, e.g. `module in ../03-outline/output/outline.md`", strings.TrimSpace(l.Text)))
		return
	}
	p.c.ForEach = &ForEach{
		Item:      l.Text[m[2]:m[3]],
		Path:      l.Text[m[4]:m[5]],
		PathRange: l.Sub(m[4], m[5]-m[4]),
		Range:     l.Range,
	}
	if len(lines) > 1 {
		p.add(lines[1].Range, Warning, CodeBadForEach, "only the first line of For each is read; a stage loops over one file")
	}
}
