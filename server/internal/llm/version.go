package llm

import (
	"context"
	"encoding/json"
	"time"
)

// versionWait bounds asking a server for its version.
const versionWait = 3 * time.Second

// ServerVersion asks the model server c talks to for its version (Ollama's
// GET /api/version), once, without retrying. It returns "" and no error
// for a server that does not say (an OpenAI-compatible one, a pool); an
// error when the server cannot be reached or answers an error.
func ServerVersion(ctx context.Context, c Client) (string, error) {
	var cn *conn
	switch v := c.(type) {
	case *Ollama:
		cn = &v.conn
	case *fallback:
		return ServerVersion(ctx, v.Client)
	default:
		return "", Ping(ctx, c)
	}
	ctx, cancel := context.WithTimeout(ctx, versionWait)
	defer cancel()
	var body struct {
		Version string `json:"version"`
	}
	start := cn.now()
	f := cn.exchange(ctx, "/api/version", nil, false, func(raw []byte) *failure {
		if err := json.Unmarshal(raw, &body); err != nil {
			return &failure{kind: KindOther, msg: "unable to read the server's version", err: err}
		}
		return nil
	})
	if f != nil {
		return "", f.toError("", "", 1, cn.now().Sub(start))
	}
	return body.Version, nil
}
