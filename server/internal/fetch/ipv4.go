package fetch

import (
	"net/netip"
	"strconv"
	"strings"
)

// parseIPv4Legacy reads the IPv4 spellings that browsers and C resolvers
// accept besides dotted quads: one to four parts, each decimal, octal
// (leading 0) or hex (0x), the last part filling the remaining bytes
// ("127.1", "2130706433", "0x7f.0.0.1"). Reading them ourselves means a
// host like "127.1" is judged as the loopback address it is, not sent to
// DNS as a name.
func parseIPv4Legacy(host string) (netip.Addr, bool) {
	if host == "" || strings.HasSuffix(host, "..") {
		return netip.Addr{}, false
	}
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	// All but the last part are single bytes; the last fills the rest.
	for _, n := range nums[:len(nums)-1] {
		if n > 0xff {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	var v uint32
	for i, n := range nums[:len(nums)-1] {
		v |= uint32(n) << (8 * (3 - i))
	}
	v |= uint32(last)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 0xffffffff {
		return 0, false
	}
	return n, true
}

// hostAddr returns the address a URL host names literally (IPv6 in
// brackets or not, dotted quads and the legacy IPv4 forms), if it does.
func hostAddr(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if i := strings.IndexByte(h, '%'); i >= 0 {
		// A zone only makes sense on link-local addresses, which are refused
		// anyway; keep the address so it is judged.
		h = h[:i]
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true
	}
	return parseIPv4Legacy(host)
}
