package mcpgate

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// RequireToken serves next only the requests that carry the token as
// "Authorization: Bearer TOKEN", compared in constant time; any other
// gets 401, before its body is read. file is where the token is kept,
// for what the refusal says.
func RequireToken(token, file string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="icm"`)
			http.Error(w, fmt.Sprintf("this icm workspace server serves only requests with its token: send \"Authorization: Bearer TOKEN\", the token in %s (icm mcp install --http prints a client's setup)", file), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
