package lsp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/suggest"
)

// modelStatus is what icm.modelStatus answers (docs/lsp-protocol.md).
type modelStatus struct {
	URL        string   `json:"url"`
	Reachable  bool     `json:"reachable"`
	Model      string   `json:"model"`
	Installed  bool     `json:"installed"`
	Suggestion string   `json:"suggestion,omitempty"`
	Models     []string `json:"models"`
	Error      string   `json:"error,omitempty"`
	// Problem is why the server did not answer, as a failed run's error
	// is told (its message, and data with the hint and the fixes).
	Problem *problem `json:"problem,omitempty"`
}

// problem is an error as a result carries it: the message and the data
// an error reply would have.
type problem struct {
	Message string     `json:"message"`
	Data    *errorData `json:"data"`
}

// modelStatusOf runs icm.modelStatus: it asks the workspace's model
// server whether it answers and has the model in force (the
// walkthrough's first step).
func modelStatusOf(ctx context.Context, _ *env, st *snapshot.Workspace, _ commandArgs) (any, error) {
	o, err := st.Acquire()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	sess := o.Session()
	out := &modelStatus{URL: sess.ModelServer().URL(), Model: sess.Model(), Models: []string{}}
	names, err := sess.ModelServer().Models(ctx)
	if err != nil {
		f := fault.From(err)
		out.Error, out.Problem = err.Error(), &problem{Message: f.Error(), Data: dataOf(f)}
		return out, nil
	}
	out.Reachable, out.Models = true, names
	for _, n := range names {
		if strings.EqualFold(n, out.Model) || strings.EqualFold(n, out.Model+":latest") {
			out.Installed = true
		}
	}
	if !out.Installed {
		out.Suggestion = suggest.Model(out.Model, names)
	}
	return out, nil
}

// pulls are the model downloads in progress, by progress token, so the
// progress notification's Cancel stops them.
type pulls struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
}

func (p *pulls) add(token string, cancel context.CancelFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]context.CancelFunc{}
	}
	p.m[token] = cancel
}

func (p *pulls) done(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, token)
}

// cancel stops the pull of a token; false when there is none.
func (p *pulls) cancel(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.m[token]
	if ok {
		c()
	}
	return ok
}

// pullModel runs icm.pullModel: it downloads a model onto the
// workspace's model server with its progress in a cancellable
// notification, and answers when it is done.
func pullModel(ctx context.Context, e *env, st *snapshot.Workspace, args commandArgs) (any, error) {
	o, err := st.Acquire()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	sess := o.Session()
	pull, err := sess.ModelServer().PreparePull(args.Model)
	if err != nil {
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	token := "icm-pull-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.pulls.add(token, cancel)
	defer e.pulls.done(token)
	p := e.client.beginProgress(ctx, token, "icm: pulling "+pull.Model, "asking the model server")
	err = pull.Run(ctx, func(pp report.PullProgress) {
		if pp.Total > 0 {
			p.report(fmt.Sprintf("%s: %s of %s", pp.Status, sizeText(pp.Completed), sizeText(pp.Total)), int(pp.Completed*100/pp.Total))
			return
		}
		p.report(pp.Status, -1)
	})
	if err != nil {
		p.end("failed: " + err.Error())
		return nil, err
	}
	pulled := pull.Model
	p.end(pulled + " is on the model server")
	e.set.ForgetModels()
	st.Touch(false)
	return map[string]string{"model": pulled}, nil
}

// sizeText is a download size for people: 812 MB, 5.2 GB.
func sizeText(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
