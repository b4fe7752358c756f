package ollamamodel

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template/parse"
	"time"

	texttemplate "text/template"

	"github.com/ollama/ollama/template"
)

// A model's chat template is a Go template the model's files carry: it
// can loop (range over a number), call itself, or write its input many
// times over, and Go templates have neither a time nor an output bound.
// Rendering is bounded three ways here: every range iteration and every
// call of a named template takes a step from a budget (a step function
// is put at the start of each loop body and of each named template when
// the model is loaded), the output goes through a writer that refuses
// more than maxPromptBytes, and both fail once the render has taken
// maxRenderTime. A legacy template (one without .Messages, which the
// server renders in parts this package does not see) may neither loop
// nor call templates, and what it can write is bounded before it runs.
const (
	// maxPromptBytes bounds a rendered prompt: far more than any model's
	// window holds.
	maxPromptBytes = 32 << 20
	// maxTemplateSteps bounds the loop iterations and template calls of
	// one render; a real template takes a few per message and tool.
	maxTemplateSteps = 1 << 20
	// maxRenderTime bounds one render; a real one takes milliseconds.
	maxRenderTime = 5 * time.Second
)

// stepFunc is the name the step function is put into templates under.
const stepFunc = "icmTemplateStep"

// errTemplateBound is a render stopped at one of the bounds.
var errTemplateBound = errors.New("the chat template went past what icm renders")

// templateShape is what loading learnt of a template for its renders.
type templateShape struct {
	// legacy: the template has no .Messages, and the server renders it
	// in parts.
	legacy bool
	// actions counts the template's actions (what a legacy render is
	// bounded by).
	actions int
}

// boundTemplate checks a parsed template and, for one that renders
// .Messages, puts the step function at the start of each loop body and
// named template.
func boundTemplate(t *template.Template) (templateShape, error) {
	vars, err := t.Vars()
	if err != nil {
		return templateShape{}, err
	}
	shape := templateShape{legacy: !slices.Contains(vars, "messages")}
	var walk func(n parse.Node) error
	walk = func(n parse.Node) error {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return nil
			}
			for _, c := range n.Nodes {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *parse.ActionNode:
			shape.actions++
		case *parse.TemplateNode:
			shape.actions++
			if shape.legacy {
				return fmt.Errorf("its template (one without .Messages) calls template %q, which icm does not render", n.Name)
			}
		case *parse.IfNode:
			return walkBranch(&n.BranchNode, walk, &shape)
		case *parse.WithNode:
			return walkBranch(&n.BranchNode, walk, &shape)
		case *parse.RangeNode:
			if shape.legacy {
				return errors.New("its template (one without .Messages) has a range, which icm does not render")
			}
			n.List.Nodes = append([]parse.Node{stepNode(n.Position())}, n.List.Nodes...)
			return walkBranch(&n.BranchNode, walk, &shape)
		}
		return nil
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		if err := walk(tt.Root); err != nil {
			return shape, err
		}
		if !shape.legacy {
			tt.Root.Nodes = append([]parse.Node{stepNode(tt.Root.Position())}, tt.Root.Nodes...)
		}
	}
	if !shape.legacy {
		// The step of a render is set on its own copy (render); this one
		// only makes the template whole.
		t.Template.Funcs(texttemplate.FuncMap{stepFunc: func() string { return "" }})
	}
	return shape, nil
}

func walkBranch(b *parse.BranchNode, walk func(parse.Node) error, shape *templateShape) error {
	shape.actions++
	if b.List != nil {
		if err := walk(b.List); err != nil {
			return err
		}
	}
	if b.ElseList != nil {
		return walk(b.ElseList)
	}
	return nil
}

// stepNode is {{icmTemplateStep}}: it writes nothing.
func stepNode(pos parse.Pos) parse.Node {
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos,
		Cmds: []*parse.CommandNode{{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{parse.NewIdentifier(stepFunc).SetPos(pos)}}}}}
}

// renderBudget is one render's steps, bytes and deadline.
type renderBudget struct {
	steps    int
	written  int
	deadline time.Time
	now      func() time.Time
	// out holds the output in chunks: a growing buffer would copy it at
	// each doubling and leave the old copies to the collector.
	out [][]byte
}

// renderChunk is the size of a chunk of output.
const renderChunk = 64 << 10

func newRenderBudget() *renderBudget {
	b := &renderBudget{now: time.Now}
	b.deadline = b.now().Add(maxRenderTime)
	return b
}

// step takes one step of the budget.
func (b *renderBudget) step() (string, error) {
	b.steps++
	if b.steps > maxTemplateSteps {
		return "", fmt.Errorf("%w: more than %d loop iterations and template calls", errTemplateBound, maxTemplateSteps)
	}
	if b.steps%1024 == 0 && b.now().After(b.deadline) {
		return "", fmt.Errorf("%w: it rendered for more than %s", errTemplateBound, maxRenderTime)
	}
	return "", nil
}

// Write keeps the render's output, up to maxPromptBytes.
func (b *renderBudget) Write(p []byte) (int, error) {
	if b.written+len(p) > maxPromptBytes {
		return 0, fmt.Errorf("%w: more than %d MB of prompt", errTemplateBound, maxPromptBytes>>20)
	}
	if b.now().After(b.deadline) {
		return 0, fmt.Errorf("%w: it rendered for more than %s", errTemplateBound, maxRenderTime)
	}
	b.written += len(p)
	for rest := p; len(rest) > 0; {
		if n := len(b.out); n == 0 || len(b.out[n-1]) == cap(b.out[n-1]) {
			b.out = append(b.out, make([]byte, 0, max(renderChunk, min(len(rest), maxPromptBytes))))
		}
		last := &b.out[len(b.out)-1]
		k := min(len(rest), cap(*last)-len(*last))
		*last = append(*last, rest[:k]...)
		rest = rest[k:]
	}
	return len(p), nil
}

// String is the output.
func (b *renderBudget) String() string {
	var s strings.Builder
	s.Grow(b.written)
	for _, c := range b.out {
		s.Write(c)
	}
	return s.String()
}

// render executes the model's template on v within the bounds.
func (m *Model) render(v template.Values) (string, error) {
	if m.shape.legacy {
		// Each action writes at most the request, or the template's
		// text, in each of the parts the server renders.
		size := len(m.template.String())
		for _, msg := range v.Messages {
			size += len(msg.Content) + len(msg.Thinking)
		}
		if bound := int64(m.shape.actions+1) * int64(size) * int64(len(v.Messages)+1); bound > maxPromptBytes {
			return "", fmt.Errorf("%w: its template (one without .Messages) could write %d MB", errTemplateBound, bound>>20)
		}
	}
	t := m.template
	b := newRenderBudget()
	if !m.shape.legacy {
		c, err := m.template.Template.Clone()
		if err != nil {
			return "", err
		}
		c.Funcs(texttemplate.FuncMap{stepFunc: b.step})
		t = &template.Template{Template: c}
	}
	if err := t.Execute(b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}
