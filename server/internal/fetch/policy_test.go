package fetch

import (
	"errors"
	"net/netip"
	"testing"
)

func TestPolicyCheck(t *testing.T) {
	tests := []struct {
		allow []string
		host  string
		addr  string
		ok    bool
	}{
		{nil, "example.com", "93.184.215.14:443", true},
		{nil, "example.com", "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443", true},
		{nil, "x", "127.0.0.1:80", false},
		{nil, "x", "10.0.0.1:80", false},
		{nil, "x", "172.31.255.255:80", false},
		{nil, "x", "192.168.1.1:80", false},
		{nil, "x", "100.100.100.200:80", false},
		{nil, "x", "169.254.169.254:80", false},
		{nil, "x", "0.0.0.0:80", false},
		{nil, "x", "224.0.0.1:80", false},
		{nil, "x", "[::1]:80", false},
		{nil, "x", "[::]:80", false},
		{nil, "x", "[::ffff:127.0.0.1]:80", false},
		{nil, "x", "[::ffff:8.8.8.8]:80", false},
		{nil, "x", "[fe80::1]:80", false},
		{nil, "x", "[fd00::1]:80", false},
		{nil, "x", "[64:ff9b::7f00:1]:80", false},
		{[]string{"127.0.0.1"}, "x", "127.0.0.1:9", true},
		{[]string{"127.0.0.1"}, "x", "127.0.0.2:9", false},
		{[]string{"127.0.0.1:8080"}, "x", "127.0.0.1:8080", true},
		{[]string{"127.0.0.1:8080"}, "x", "127.0.0.1:8081", false},
		{[]string{"127.0.0.1"}, "x", "[::ffff:127.0.0.1]:9", true},
		{[]string{"10.0.0.0/8"}, "x", "10.9.9.9:80", true},
		{[]string{"[::1]:80"}, "x", "[::1]:80", true},
		{[]string{"intranet.example"}, "Intranet.Example.", "10.0.0.5:80", true},
		{[]string{"intranet.example:8080"}, "intranet.example", "10.0.0.5:80", false},
		{[]string{"intranet.example"}, "other.example", "10.0.0.5:80", false},
	}
	for _, tt := range tests {
		p, err := NewPolicy(tt.allow)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Check(tt.host, netip.MustParseAddrPort(tt.addr))
		var be *BlockedError
		switch {
		case tt.ok && err != nil:
			t.Errorf("allow %v: Check(%s, %s) = %v, want allowed", tt.allow, tt.host, tt.addr, err)
		case !tt.ok && !errors.As(err, &be):
			t.Errorf("allow %v: Check(%s, %s) = %v, want *BlockedError", tt.allow, tt.host, tt.addr, err)
		}
	}
}

func TestNewPolicyRejectsBadEntries(t *testing.T) {
	for _, e := range []string{"127.0.0.1:0", "host:99999", "a b", "http://x/"} {
		if _, err := NewPolicy([]string{e}); err == nil {
			t.Errorf("NewPolicy(%q) accepted a bad entry", e)
		}
	}
}
