package fetch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestProxyForwardsAllowedAndRefusesBlocked(t *testing.T) {
	allowed := newCounter(t, hello)
	blocked := newCounter(t, hello)
	pol, err := NewPolicy([]string{allowed.hostPort()})
	if err != nil {
		t.Fatal(err)
	}
	p, err := StartProxy(&Dialer{Policy: pol, Guard: loopbackOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pu, _ := url.Parse("http://" + p.Addr())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}

	resp, err := client.Get(allowed.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "<p>hello</p>" {
		t.Fatalf("allowed: %d %q", resp.StatusCode, body)
	}

	for _, target := range []string{blocked.URL, "http://localhost:" + blocked.port(), "http://2130706433:" + blocked.port()} {
		resp, err := client.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get(BlockedHeader) == "" {
			t.Fatalf("%s: status %d, blocked header %q", target, resp.StatusCode, resp.Header.Get(BlockedHeader))
		}
	}
	var be *BlockedError
	if err := p.Blocked("127.0.0.1"); !errors.As(err, &be) {
		t.Fatalf("Blocked(127.0.0.1) = %v", err)
	}

	// CONNECT to a blocked address is refused before any byte reaches it.
	conn, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", blocked.hostPort(), blocked.hostPort())
	cr, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cr.StatusCode != http.StatusForbidden {
		t.Fatalf("CONNECT to a blocked host: %d", cr.StatusCode)
	}

	// CONNECT to the allowed address tunnels.
	conn2, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	fmt.Fprintf(conn2, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\nGET /t HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", allowed.hostPort(), allowed.hostPort(), allowed.hostPort())
	br := bufio.NewReader(conn2)
	if cr, err := http.ReadResponse(br, nil); err != nil || cr.StatusCode != 200 {
		t.Fatalf("CONNECT to the allowed host: %v %v", cr, err)
	}
	tr, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(tr.Body)
	if !strings.Contains(string(b), "hello") {
		t.Fatalf("tunnelled body %q", b)
	}
	if n := blocked.hits.Load(); n != 0 {
		t.Fatalf("blocked server logged %d requests", n)
	}
}
