package assemble

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// LayerContract labels the part that is the stage contract as the model
// reads it (the whole contract, not the Process alone).
const contractLabel = "Contract"

// wholeContract reports whether the model reads the stage contract whole:
// when it has instructions beyond its Process (a purpose line under the
// title, a Purpose, Checkpoints, an Audit, a Review Gate, Verify or Model
// prose, any section icm does not use), no Process at all, or outputs the
// model must name. A contract in the seed's notation (a title, Process,
// plain-name outputs, icm's own sections) gives the Process alone, as it
// always has.
func wholeContract(c *contract.Contract) bool {
	if c.FallbackInstructions || writeout.Needed(c) || authored(c.Summary) != "" {
		return true
	}
	for _, s := range c.Sections {
		switch {
		case c.ProseSection(s):
			return true
		case s.Kind == "" || s.Kind == contract.KindCheckpoints || s.Kind == contract.KindAudit:
			if authored(s.Text) != "" {
				return true
			}
		case s.Kind == contract.KindVerify:
			if authored(contract.VerifyProse(s.Text)) != "" {
				return true
			}
		case s.Kind == contract.KindModel:
			if authored(contract.ModelProse(s.Text)) != "" {
				return true
			}
		}
	}
	return false
}

// authored is the author's text as the model reads it: without the HTML
// comments they left for themselves, trimmed.
func authored(s string) string {
	return strings.TrimSpace(markdown.Uncomment(s))
}

// contractText is the stage contract as the model reads it: every section
// as its author wrote it, in the author's order, under the title and its
// summary, without HTML comments; icm's own settings (Tools, Model
// settings, For each, Script commands, Gate, Thresholds, Verify checks)
// left out; Inputs as written, followed by what was loaded (loaded are
// those parts); Outputs kept, followed by the files icm accepts and how
// to write them (mode, a writeout mode).
func (a *assembler) contractText(c *contract.Contract, loaded []Part, mode string) string {
	var out []string
	if c.Title != "" {
		out = append(out, "# "+a.titleLine(c))
	}
	if s := a.authored(c.Summary); s != "" {
		out = append(out, s)
	}
	accepted := false
	for _, s := range c.Sections {
		body := ""
		switch {
		case s.Kind == contract.KindModel:
			body = a.authored(contract.ModelProse(s.Text))
		case contract.MachineSection(s.Kind) && !c.ProseSection(s):
			continue
		case s.Kind == contract.KindInputs:
			body = a.authored(s.Text) + "\n\n" + loadedList(loaded)
		case s.Kind == contract.KindOutputs:
			// Alternative Outputs sections (optional blocks) are shown
			// as written; what icm accepts follows the first.
			body = a.outputsText(c, s.Text, mode, !accepted)
			accepted = true
		case s.Kind == contract.KindVerify:
			body = a.authored(contract.VerifyProse(s.Text))
		default:
			body = a.authored(s.Text)
		}
		if body = strings.TrimSpace(body); body == "" {
			continue
		}
		out = append(out, "## "+s.Name+"\n\n"+body)
	}
	return strings.Join(out, "\n\n")
}

// authored is the author's text as the model reads it: comments left
// out, optional blocks applied and variables filled, trimmed.
func (a *assembler) authored(s string) string {
	return strings.TrimSpace(a.text(markdown.Uncomment(s)))
}

// titleLine is the contract's title as written ("Stage: 01-scope").
func (a *assembler) titleLine(c *contract.Contract) string {
	if src, err := a.ws.Files.ReadFile(c.File); err == nil && c.TitleRange.End <= len(src) && c.TitleRange.Len() > 0 {
		return strings.TrimSpace(string(src[c.TitleRange.Start:c.TitleRange.End]))
	}
	return c.Title
}

// loadedList says what the stage's inputs loaded: each file with its
// layer and the part of it taken, where it is in the context, and the
// size of what was loaded.
func loadedList(parts []Part) string {
	var lines []string
	for _, p := range parts {
		if p.Path == "" || p.Text == "" || (p.Layer != contract.LayerReference && p.Layer != contract.LayerWorking) {
			continue
		}
		where := "reference, in the system text"
		if p.Layer == contract.LayerWorking {
			where = "working material, below"
		}
		what := "`" + p.Path + "`"
		if _, scope, ok := strings.Cut(p.Label, "#"); ok {
			what += ", section " + strings.ReplaceAll(scope, "|", ", ")
		}
		if p.Size > 0 && strings.HasPrefix(p.Text, "(") {
			what += ", path and size only"
		}
		lines = append(lines, fmt.Sprintf("- %s (layer %d, %s; %s)", what, p.Layer, where, byteSize(p.Bytes)))
	}
	if len(lines) == 0 {
		return "No file is loaded for this stage."
	}
	return "Loaded for this stage:\n" + strings.Join(lines, "\n")
}

// outputsText is the Outputs section as the author wrote it, then the
// files icm accepts and how the model writes them.
func (a *assembler) outputsText(c *contract.Contract, written, mode string, accepted bool) string {
	var b strings.Builder
	if t := a.authored(written); t != "" {
		b.WriteString(t + "\n\n")
	}
	if !accepted {
		return b.String()
	}
	if writeout.Needed(c) {
		b.WriteString(writeout.Instructions(mode, writeout.Targets(c)))
		return b.String()
	}
	if o, ok := c.ModelOutput(); ok {
		fmt.Fprintf(&b, "Your answer is saved as `%s`: answer with the file's content itself.", o.Path)
	}
	return b.String()
}
