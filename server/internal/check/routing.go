package check

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/suggest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// routedStage is a stage folder's name as a routing file writes it: in
// backticks or as a path's folder (`01-draft`, pipeline/01-draft/).
var routedStage = regexp.MustCompile("(?:`|/)(\\d{1,3}[-_][A-Za-z0-9][A-Za-z0-9_.-]*?)(?:`|/)")

// routingStages compares the stages the routing file names with the stage
// folders: the model reads the routing file as the map of the workspace,
// so a stage it names that has no folder, or a folder it leaves out,
// misleads the model. Said only when the file names a stage at all (many
// routing files describe the workspace in other words).
func (c *checker) routingStages() {
	file := c.ws.Abs(workspace.RoutingFile)
	src, err := c.ws.Files.ReadFile(file)
	if err != nil || len(c.ws.Stages) == 0 {
		return
	}
	folders := map[string]bool{}
	var names []string
	for _, st := range c.ws.Stages {
		folders[st.Name] = true
		names = append(names, st.Name)
	}
	named := map[string]bool{}
	var unknown []string
	at := map[string]document.Range{}
	for _, m := range routedStage.FindAllSubmatchIndex(src, -1) {
		name := string(src[m[2]:m[3]])
		if named[name] {
			continue
		}
		named[name] = true
		if !folders[name] {
			unknown = append(unknown, name)
			at[name] = lineSpan(src, 1+bytes.Count(src[:m[2]], []byte("\n")))
		}
	}
	if len(named) == 0 {
		return
	}
	var missing []string
	for _, n := range names {
		if !named[n] {
			missing = append(missing, n)
		}
	}
	meant := map[string]bool{}
	for _, n := range unknown {
		msg := fmt.Sprintf("the routing file names the stage %s, but there is no such stage folder; the model reads it as a stage of the workspace", n)
		data := map[string]string{}
		if near := suggest.Nearest(n, missing); near != "" {
			msg = fmt.Sprintf("the routing file names the stage %s, but the stage folder is %s: write `%s`", n, near, near)
			data["fix"], meant[near] = near, true
		}
		c.add(contract.Finding{File: file, Range: at[n], Severity: contract.Info, Code: contract.CodeRoutingStages, Message: msg, Data: data})
	}
	var left []string
	for _, n := range missing {
		if !meant[n] {
			left = append(left, "`"+n+"`")
		}
	}
	if len(left) > 0 {
		c.add(contract.Finding{File: file, Severity: contract.Info, Code: contract.CodeRoutingStages,
			Message: fmt.Sprintf("the routing file does not name the stage %s, so the model's map of the workspace leaves %s out: add %s to its list of stages", strings.Join(left, ", "), them(len(left)), them(len(left)))})
	}
}

// them is "it" or "them".
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
