package tools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/icm-tool/icm/server/internal/tools/mcpfixture"
	"github.com/mark3labs/mcp-go/server"
)

// requireHeader answers 401 unless the request carries the header, the way
// a hosted MCP server checks its token.
func requireHeader(h http.Handler, key, value string, seen *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(key) != value {
			http.Error(w, "missing token", http.StatusUnauthorized)
			return
		}
		seen.Add(1)
		h.ServeHTTP(w, r)
	})
}

func TestRemoteServers(t *testing.T) {
	mcpSrv := mcpfixture.New(mcpfixture.Options{Name: "remote"})
	var streamSeen, sseSeen atomic.Int64
	stream := httptest.NewServer(requireHeader(server.NewStreamableHTTPServer(mcpSrv), "Authorization", "Bearer t0ken", &streamSeen))
	t.Cleanup(stream.Close)
	sseHandler := server.NewSSEServer(mcpSrv)
	sse := httptest.NewServer(requireHeader(sseHandler, "Authorization", "Bearer t0ken", &sseSeen))
	t.Cleanup(sse.Close)
	auth := map[string]string{"Authorization": "Bearer t0ken"}

	tests := []struct {
		name    string
		server  Server
		seen    *atomic.Int64
		wantErr string
	}{
		{"streamable HTTP", Server{Name: "web", Transport: TransportHTTP, URL: stream.URL + "/mcp", Headers: auth}, &streamSeen, ""},
		{"streamable HTTP without token", Server{Name: "web", Transport: TransportHTTP, URL: stream.URL + "/mcp"}, &streamSeen, `MCP server "web"`},
		{"SSE", Server{Name: "old", Transport: TransportSSE, URL: sse.URL + "/sse", Headers: auth}, &sseSeen, ""},
		{"nothing listening", Server{Name: "down", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"}, nil, `MCP server "down"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := Registry{tc.server.Name: tc.server}
			s, err := Open(context.Background(), reg, map[string][]string{tc.server.Name: {"echo", "add"}}, Options{Permit: allowAll})
			if tc.wantErr != "" {
				if err == nil {
					s.Close()
					t.Fatal("Open succeeded")
				}
				t.Logf("error: %v", err)
				var se *ServerError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error = %v, want a ServerError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			before := tc.seen.Load()
			res, err := s.Call(context.Background(), tc.server.Name+"_add", map[string]any{"a": 40, "b": 2})
			if err != nil || res.Text != "42" {
				t.Fatalf("add: %+v, %v", res, err)
			}
			if tc.seen.Load() <= before {
				t.Errorf("the call did not reach the server with the header")
			}
			res, _ = s.Call(context.Background(), tc.server.Name+"_add", map[string]any{"a": "forty"})
			if !res.IsError || !strings.Contains(res.Text, `argument "a"`) {
				t.Errorf("bad arguments were not refused: %+v", res)
			}
		})
	}
}
