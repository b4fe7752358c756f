package telemetry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
)

// The collector is the person's (their environment names it), never a
// workspace's: sending it spans is icm's own work.
const collectorWork = "traces to the OTLP collector the environment names"

// own is the exporter's permit.
func own() act.Permit { return act.Own(collectorWork) }

// collector is contacting the collector at url.
func collector(url string) act.Action {
	return act.Action{Kind: act.Contact, URL: url, Reason: collectorWork}
}

// defaultExportTimeout is the OTLP exporters' own default.
const defaultExportTimeout = 10 * time.Second

// httpSettings are what the http/protobuf exporter would read from the
// environment for a client of its own, for the client icm gives it:
// the timeout (milliseconds) and the certificates, traces' own variables
// first.
func httpSettings(getenv func(string) string) (act.HTTP, error) {
	get := func(name string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
	}
	o := act.HTTP{Timeout: defaultExportTimeout}
	if v := get("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return o, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT=%q: write the timeout in milliseconds", v)
		}
		o.Timeout = time.Duration(ms) * time.Millisecond
	}
	ca, cert, key := get("CERTIFICATE"), get("CLIENT_CERTIFICATE"), get("CLIENT_KEY")
	if ca == "" && cert == "" {
		return o, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return o, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return o, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %s holds no PEM certificate", ca)
		}
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return o, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	o.Tune = func(t *http.Transport) { t.TLSClientConfig = cfg }
	return o, nil
}
