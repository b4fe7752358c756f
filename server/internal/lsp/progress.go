package lsp

import (
	"context"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// progress reports a long operation through window/workDoneProgress and
// $/progress. It is made from a goroutine, never a handler: creating the
// token is a request to the client.
type progress struct {
	c     *client
	token string
	ok    bool
}

// beginProgress creates a progress token (when the client supports work
// done progress) and sends the begin report. Without client support the
// reports are dropped.
func (c *client) beginProgress(ctx context.Context, token, title, message string) *progress {
	p := &progress{c: c, token: token}
	if !c.supports(func(c protocol.ClientCapabilities) bool {
		return c.Window != nil && c.Window.WorkDoneProgress != nil && *c.Window.WorkDoneProgress
	}) {
		return p
	}
	if err := c.call(ctx, "window/workDoneProgress/create", protocol.WorkDoneProgressCreateParams{Token: protocol.ProgressToken{Value: token}}, nil); err != nil {
		c.log.Info("the client refused a progress token", "err", err)
		return p
	}
	p.ok = true
	yes := true
	p.send(protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &yes, Message: &message})
	return p
}

// report sends a progress message; percentage is used when 0..100.
func (p *progress) report(message string, percentage int) {
	r := protocol.WorkDoneProgressReport{Kind: "report", Message: &message}
	if percentage >= 0 && percentage <= 100 {
		v := protocol.UInteger(percentage)
		r.Percentage = &v
	}
	p.send(r)
}

// end closes the progress with a final message.
func (p *progress) end(message string) {
	p.send(protocol.WorkDoneProgressEnd{Kind: "end", Message: &message})
	p.ok = false
}

func (p *progress) send(v any) {
	if !p.ok {
		return
	}
	if err := p.c.notify("$/progress", protocol.ProgressParams{Token: protocol.ProgressToken{Value: p.token}, Value: v}); err != nil {
		p.c.log.Info("unable to report progress", "err", err)
	}
}
