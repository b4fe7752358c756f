package realollama

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// registry is an empty model registry on 127.0.0.1, served over HTTPS with
// a certificate the server is told to trust (SSL_CERT_FILE). Pulling a
// model named "<host>/library/NAME" asks it and gets the answer a real
// registry gives for a model it does not have, without any traffic
// leaving the machine (a plain name would make the server look up
// registry.ollama.ai).
type registry struct {
	srv      *httptest.Server
	certFile string
	requests atomic.Int64
	closing  sync.Once
}

func startRegistry(certFile string) (*registry, error) {
	r := &registry{certFile: certFile}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	block := &pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(block), 0o644); err != nil {
		r.srv.Close()
		return nil, fmt.Errorf("unable to write the test registry's certificate %s: %w", certFile, err)
	}
	return r, nil
}

// host is the registry's host:port, the first part of a model name.
func (r *registry) host() string {
	return strings.TrimPrefix(r.srv.URL, "https://")
}

// serve answers every request the way a distribution registry answers
// for an unknown repository: 404 with an errors list.
func (r *registry) serve(w http.ResponseWriter, req *http.Request) {
	r.requests.Add(1)
	code := "NAME_UNKNOWN"
	if strings.Contains(req.URL.Path, "/manifests/") {
		code = "MANIFEST_UNKNOWN"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]string{{"code": code, "message": "not found in the icm test registry"}},
	})
}

// close stops the registry; later calls do nothing.
func (r *registry) close() { r.closing.Do(r.srv.Close) }
