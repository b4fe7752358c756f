package check

// This file holds the text of icm's skeletons a person has not replaced
// yet: it reaches the model as it is, so each is noted with what to write
// instead (Data "fix").

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// unedited notes a stage's skeleton text: its purpose line and Process as
// icm new-stage wrote them, and the files it loads that still hold a
// skeleton's placeholder.
func (c *checker) unedited(st *workspace.Stage, k *contract.Contract, src []byte, ctx *assemble.Context) {
	note := func(r document.Range, s contract.Skeleton, msg string) {
		c.add(contract.Finding{File: st.Contract, Range: r, Severity: contract.Info, Code: contract.CodeUnedited,
			Message: msg + ": " + s.Fix, Data: map[string]string{"fix": s.Fix}})
	}
	if s := contract.PurposeSkeleton; s.In(k.Summary) {
		note(textRange(src, s.Text, k.TitleRange), s, "the line under the title is still "+s.What+", and the model reads it as what the stage does")
	}
	if s := contract.ProcessSkeleton; s.In(k.Process) {
		note(textRange(src, firstLine(s.Text), k.ProcessRange), s, "the Process is still the skeleton's text, so the model is told to work out the stage itself")
	}
	if ctx == nil {
		return
	}
	for _, p := range ctx.Parts {
		if p.Path == "" || p.Missing || (p.Layer != contract.LayerWorking && p.Layer != contract.LayerReference) {
			continue
		}
		for _, s := range contract.FileSkeletons {
			if s.In(p.Text) {
				note(inputRange(st, k, p.Path), s, fmt.Sprintf("%s still holds %s text, and the model would work on that", path.Base(p.Path), s.What))
				break
			}
		}
	}
}

// uneditedRouting notes the routing file's stage lines that still hold
// the skeleton's purpose line.
func (c *checker) uneditedRouting() {
	file := c.ws.Abs(workspace.RoutingFile)
	src, err := c.ws.Files.ReadFile(file)
	s := contract.PurposeSkeleton
	if err != nil || !bytes.Contains(src, []byte(s.Text)) {
		return
	}
	for i, line := range strings.Split(string(src), "\n") {
		if !strings.Contains(line, s.Text) {
			continue
		}
		stage := "the stage"
		for _, st := range c.ws.Stages {
			if strings.Contains(line, st.Name) {
				stage = st.Name
			}
		}
		c.add(contract.Finding{File: file, Range: lineSpan(src, i+1), Severity: contract.Info, Code: contract.CodeUnedited,
			Message: fmt.Sprintf("the stage list's line for %s is still %s, and the model reads it as what %s does: %s", stage, s.What, stage, s.Fix),
			Data:    map[string]string{"fix": s.Fix}})
	}
}

// textRange is where text starts in src, to the end of its line; within
// is the range when src does not hold text as written (spaces aside).
func textRange(src []byte, text string, within document.Range) document.Range {
	i := bytes.Index(src, []byte(text))
	if i < 0 {
		return within
	}
	end := bytes.IndexByte(src[i:], '\n')
	if end < 0 {
		end = len(src) - i
	}
	return document.Range{Start: i, End: i + end}
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// inputRange is the contract's input line that names the
// workspace-relative file rel, or the title when none does.
func inputRange(st *workspace.Stage, k *contract.Contract, rel string) document.Range {
	for _, in := range k.Inputs {
		if in.Path != "" && path.Join(st.Rel, in.Path) == rel {
			return in.PathRange
		}
	}
	for _, in := range k.Inputs {
		if in.Path != "" && path.Base(in.Path) == path.Base(rel) {
			return in.PathRange
		}
	}
	return k.TitleRange
}
