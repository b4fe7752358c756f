package lsp

import (
	"context"
)

// The model facts hovers and checks use: the context window of the model
// in force, asked of its server once per server and model, off the
// analysis path.

// awaitWindow waits for a context-window query in flight (a hover shows
// the window, and the first hover usually comes right after opening).
func (st *wsState) awaitWindow(ctx context.Context) {
	st.mu.Lock()
	done := st.winDone
	st.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (st *wsState) windowSize() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.window
}

// modelName is the model in force before any contract's ## Model.
func (st *wsState) modelName() string {
	o, err := st.acquire()
	if err != nil {
		return ""
	}
	defer o.release()
	return o.sess.Model()
}

// ensureWindow learns how large the model's context window is: from
// config.toml for a server that cannot be asked, else from the server in
// the background; an answer that changes it triggers a new analysis so
// over-window contexts get flagged.
func (st *wsState) ensureWindow(o *opening) {
	sess := o.sess
	if w, ok := sess.ConfiguredWindow(); ok {
		st.mu.Lock()
		st.window = w
		st.mu.Unlock()
		return
	}
	key := sess.ModelKey()
	st.mu.Lock()
	if sess.Model() == "" || st.winKey == key {
		st.mu.Unlock()
		return
	}
	st.winKey = key
	done := make(chan struct{})
	st.winDone = done
	st.mu.Unlock()
	o.hold() // for the query, which may outlast the analysis
	started := st.s.goBackground(func() {
		defer o.release()
		defer close(done)
		w, err := sess.Window(st.ctx)
		if err != nil {
			st.s.log.Info("unable to learn the model's context window", "model", sess.Model(), "err", err)
			return
		}
		st.s.log.Info("context window", "model", sess.Model(), "tokens", w)
		st.mu.Lock()
		changed := st.window != w
		st.window = w
		st.mu.Unlock()
		if changed {
			st.touch(false)
		}
	})
	if !started {
		o.release()
		close(done)
	}
}
