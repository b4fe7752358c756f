package cli

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
)

// loopbackAddr checks that an --http address listens on this machine
// only (127.0.0.1, ::1 or localhost): the workspace server writes
// outputs and runs stages for whoever holds its token.
func loopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err == nil && isLoopbackHost(host) {
		return nil
	}
	return fault.InvalidRequest(fmt.Sprintf("--http %s: the workspace server listens on a loopback address only (127.0.0.1, ::1 or localhost): it writes outputs and runs stages for whoever holds its token", addr),
		"use --http 127.0.0.1:PORT, or stdio (no --http)")
}

// isLoopbackHost reports whether host (a name or an address, without a
// port) is this machine's loopback.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// localOnly refuses, on a loopback listener, requests that do not come
// from a client on the machine speaking to it by a loopback name: a Host
// that is not one (another site's name resolved to 127.0.0.1, as DNS
// rebinding does) or an Origin of another site (a page in the person's
// browser). An MCP client sends no Origin, or its own loopback one.
func localOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !isLoopbackHost(host) {
			http.Error(w, fmt.Sprintf("Host %q is not this machine's loopback: icm serves MCP here to local clients only", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host == "" || !isLoopbackHost(u.Hostname()) {
				http.Error(w, fmt.Sprintf("Origin %q is another site's: icm serves MCP here to local clients only", o), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
