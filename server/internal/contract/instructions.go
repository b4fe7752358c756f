package contract

import (
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// Instructions returns what the model is told to do: the Process section,
// or, for a contract without one whose instructions are in sections of
// its own (FallbackInstructions), its summary and those sections in order,
// each under its heading.
func (c *Contract) Instructions() string {
	if strings.TrimSpace(c.Process) != "" || !c.FallbackInstructions {
		return strings.TrimSpace(c.Process)
	}
	var parts []string
	if c.Summary != "" {
		parts = append(parts, c.Summary)
	}
	for _, s := range c.Sections {
		if s.Kind == "" && strings.TrimSpace(s.Text) != "" {
			parts = append(parts, "## "+s.Name+"\n\n"+s.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// instructionNames names the sections of prose that would be the
// instructions of a contract without a Process section.
func (c *Contract) instructionNames() []string {
	var names []string
	for _, s := range c.Sections {
		if s.Kind == "" && strings.TrimSpace(s.Text) != "" {
			names = append(names, s.Name)
		}
	}
	return names
}

// instructionsFallback reports whether the sections icm does not know are
// the contract's instructions (so no note calls them unused).
func (c *Contract) instructionsFallback() bool { return c.FallbackInstructions }

// Vars returns the setup-time variables the contract was read with.
func (c *Contract) Vars() Vars { return c.vars }

// blockOf returns the index of the optional block holding offset off, or
// -1.
func (p *parser) blockOf(off int) int {
	for i, b := range p.blocks {
		if b.Kept && off >= b.Start && off < b.End {
			return i
		}
	}
	return -1
}

// alternative reads a second section of a kind that sits in another
// optional block than the first: its entries join the first's.
func (p *parser) alternative(kind string, s markdown.Section) {
	switch kind {
	case KindInputs:
		p.inputs(s)
	case KindOutputs:
		p.outputs(s)
	case KindProcess:
		if t := p.text(s.Body); t != "" {
			p.c.Process = strings.TrimSpace(p.c.Process + "\n\n" + t)
		}
	}
}
