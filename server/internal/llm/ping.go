package llm

import (
	"context"
	"time"
)

// pingWait bounds how long Ping waits for an answer.
const pingWait = 3 * time.Second

// Ping asks the model server c talks to whether it is there, once and
// without retrying, so a run can fail at once (with how to start the
// server) instead of after the retries of its first call. Any answer
// counts, an error status included: only a server that cannot be
// reached fails. Clients over several servers (a pool) answer nil; the
// pool waits for one of them on its own.
func Ping(ctx context.Context, c Client) error {
	var cn *conn
	path := "/api/version"
	switch v := c.(type) {
	case *Ollama:
		cn = &v.conn
	case *OpenAI:
		cn, path = &v.conn, "/models"
	case *fallback:
		return Ping(ctx, v.Client)
	default:
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, pingWait)
	defer cancel()
	start := cn.now()
	f := cn.exchange(ctx, path, nil, false, func([]byte) *failure { return nil })
	if f == nil || !f.unreachable {
		return nil
	}
	return f.toError("", "", 1, cn.now().Sub(start))
}
