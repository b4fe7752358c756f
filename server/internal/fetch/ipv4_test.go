package fetch

import (
	"net/netip"
	"testing"
)

func TestParseIPv4Legacy(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means not an IPv4 spelling
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0x7F.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"169.254.43518", "169.254.169.254"},
		{"10.0.0.1.", "10.0.0.1"},
		{"0", "0.0.0.0"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"256.0.0.1", ""},
		{"1.2.3.256", ""},
		{"1.2.65536", ""},
		{"1.2.3.4.5", ""},
		{"08.0.0.1", ""},
		{"example.com", ""},
		{"1..2", ""},
		{"", ""},
		{"0x", "0.0.0.0"},
	}
	for _, tt := range tests {
		got, ok := parseIPv4Legacy(tt.in)
		if tt.want == "" {
			if ok {
				t.Errorf("parseIPv4Legacy(%q) = %s, want not an address", tt.in, got)
			}
			continue
		}
		if !ok || got != netip.MustParseAddr(tt.want) {
			t.Errorf("parseIPv4Legacy(%q) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

// FuzzParseIPv4Legacy checks that no input panics and that every plain
// dotted quad reads the same as netip does.
func FuzzParseIPv4Legacy(f *testing.F) {
	for _, s := range []string{"127.1", "2130706433", "0x7f.0.0.1", "1.2.3.4", "0177.1", "a.b", "1.2.3.4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseIPv4Legacy(s)
		if ok && !got.Is4() {
			t.Fatalf("parseIPv4Legacy(%q) = %s, not IPv4", s, got)
		}
		if want, err := netip.ParseAddr(s); err == nil && want.Is4() {
			if !ok || got != want {
				t.Fatalf("parseIPv4Legacy(%q) = %s, %v; netip says %s", s, got, ok, want)
			}
		}
	})
}
