package mcpgate

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// LimitBody serves next the POST requests whose body is at most max
// bytes; a larger one is answered 413 with TooLarge, having read no
// more of it than max and one byte. tooLarge, when set, is told of each.
func LimitBody(max int, tooLarge func(), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		limit := int64(max) + 1
		if r.ContentLength > int64(max) {
			limit = idWindow // said to be too large: read only what may hold the id
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, limit))
		if err != nil {
			http.Error(w, fmt.Sprintf("unable to read the request: %v", err), http.StatusBadRequest)
			return
		}
		if r.ContentLength > int64(max) || len(data) > max {
			if tooLarge != nil {
				tooLarge()
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = w.Write(TooLarge(data, max))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		r.ContentLength = int64(len(data))
		next.ServeHTTP(w, r)
	})
}
