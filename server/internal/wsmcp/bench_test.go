package wsmcp

import (
	"context"
	"testing"

	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// benchServer serves a copy of course-research with no model server (a
// closed port: the count is an estimate) and no trust record.
func benchServer(b *testing.B) *Server {
	dir := wstest.Copy(b, "course-research")
	cfg := b.TempDir()
	env := map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9", "ICM_CONFIG_DIR": cfg}
	return New(Deps{Roots: []string{dir}, Poll: 1 << 40, Open: func(root string) (*session.Session, error) {
		ws, err := workspace.LoadWith(root, root, workspace.Options{})
		if err != nil {
			return nil, err
		}
		return session.Open(ws, session.Options{Getenv: func(k string) string { return env[k] }}), nil
	}})
}

// BenchmarkContextResource reads 02-research's context resource as a
// client does (with the count of the first call) and as a subscription's
// poll compares it (without).
func BenchmarkContextResource(b *testing.B) {
	s := benchServer(b)
	r, err := s.parse("icm://02-research/context")
	if err != nil {
		b.Fatal(err)
	}
	for _, count := range []bool{true, false} {
		name := "read"
		if !count {
			name = "poll"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.readRef(context.Background(), r, count); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSync is what each poll costs with nothing subscribed: the
// stages listed again (a check of the workspace).
func BenchmarkSync(b *testing.B) {
	s := benchServer(b)
	for b.Loop() {
		s.sync()
	}
}
