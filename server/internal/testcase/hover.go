package testcase

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// previewLines is how much of a stand-in a hover shows.
const previewLines = 12

// Hover says what the element of a case at off is (Markdown) and the
// range it covers: an expectation (what it checks), a stand-in's target
// (the input it replaces) or its file (what it holds), or the title (what
// the case replaces and expects). ok is false elsewhere.
func Hover(ws *workspace.Workspace, st *workspace.Stage, con *contract.Contract, c *Case, off int) (string, document.Range, bool) {
	for _, e := range c.Expect {
		if e.Range.Contains(off) {
			return expectationHover(st, con, e), e.Range, true
		}
	}
	for _, in := range c.Inputs {
		switch {
		case in.TargetRange.Contains(off):
			return targetHover(ws, st, con, c, in), in.TargetRange, true
		case !in.IsInline && in.FromRange.Contains(off):
			return fromHover(ws, st, c, in), in.FromRange, true
		}
	}
	if c.TitleRange.Contains(off) && c.TitleRange.Len() > 0 {
		return titleHover(con, c), c.TitleRange, true
	}
	return "", document.Range{}, false
}

func expectationHover(st *workspace.Stage, con *contract.Contract, e Expectation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s", e.Kind, ExpectationDoc(e.Kind))
	switch {
	case e.Kind == KindVerify:
		if con != nil {
			fmt.Fprintf(&b, "\n\n%s's Verify checks: %s.", st.Name, checkList(con.Verify))
		}
	case e.Kind == KindRubric:
		fmt.Fprintf(&b, "\n\nNeeds a score of at least %g of 10.", e.Threshold)
	case e.Output != "":
		fmt.Fprintf(&b, "\n\nReads the output %s.", e.Output)
	case e.Check != nil:
		b.WriteString("\n\nReads every output of the stage.")
	case con != nil:
		if o, ok := firstOutput(con); ok {
			fmt.Fprintf(&b, "\n\nReads the stage's first output, %s.", o)
		}
	}
	return b.String()
}

func checkList(cs []contract.Check) string {
	if len(cs) == 0 {
		return "none"
	}
	var names []string
	for _, c := range cs {
		n := c.Kind
		if c.Arg != "" {
			n += " " + c.Arg
		}
		names = append(names, "`"+n+"`")
	}
	return strings.Join(names, ", ")
}

func firstOutput(con *contract.Contract) (string, bool) {
	for _, o := range con.Outputs {
		if !o.Templated && !o.Dir {
			return o.Path, true
		}
	}
	return "", false
}

func targetHover(ws *workspace.Workspace, st *workspace.Stage, con *contract.Contract, c *Case, in StandIn) string {
	abs, err := Target(ws, st, in)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	if con != nil {
		if read, ok := Reads(ws, st, con)[abs]; ok {
			fmt.Fprintf(&b, "Replaces **%s** (%s of %s) for this case's runs.", in.Target, layerName(read.Layer), st.Name)
		} else {
			fmt.Fprintf(&b, "%s does not read **%s**: this stand-in changes nothing.", st.Name, in.Target)
		}
	}
	if data, err := Read(ws, st, c, in); err == nil {
		fmt.Fprintf(&b, "\n\nThe stand-in (%d lines):\n\n%s", strings.Count(string(data), "\n")+1, preview(data))
	}
	return b.String()
}

func fromHover(ws *workspace.Workspace, st *workspace.Stage, c *Case, in StandIn) string {
	abs, err := Resolve(ws, st, c, in.From)
	if err != nil {
		return "The stand-in " + err.Error()
	}
	data, err := ws.Files.ReadFile(abs)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s, %d bytes:\n\n%s", ws.Rel(abs), len(data), preview(data))
}

func titleHover(con *contract.Contract, c *Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Case %s**: %d stand-in(s), %d expectation(s)", c.ID, len(c.Inputs), len(c.Expect))
	if con != nil && len(con.Verify) > 0 {
		fmt.Fprintf(&b, ", and the stage's Verify checks (%s)", checkList(con.Verify))
	}
	b.WriteString(".")
	if len(c.Inputs) > 0 {
		b.WriteString("\n\nReplaces:")
		for _, in := range c.Inputs {
			b.WriteString("\n- " + in.Target)
		}
	}
	return b.String()
}

func layerName(n int) string {
	switch n {
	case contract.LayerWorking:
		return "working input"
	case contract.LayerReference:
		return "reference"
	}
	return fmt.Sprintf("layer %d", n)
}

// preview is the first lines of a file as a fenced block.
func preview(data []byte) string {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	more := ""
	if len(lines) > previewLines {
		more = fmt.Sprintf("\n\n(%d more lines)", len(lines)-previewLines)
		lines = lines[:previewLines]
	}
	fence := "```"
	text := strings.Join(lines, "\n")
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + "\n" + text + "\n" + fence + more
}
