package fetch

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"code.dny.dev/ssrf"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Policy decides which addresses may be connected to. The zero value is
// not usable; build one with NewPolicy.
type Policy struct {
	// guardian holds the deny table (IANA special-purpose registries).
	guardian *ssrf.Guardian
	prefixes []netip.Prefix
	addrs    []netip.AddrPort
	hosts    []hostPort
}

// hostPort is an allow-list entry naming a host; port 0 means any port.
type hostPort struct {
	host string
	port uint16
}

// NewPolicy builds a Policy from allow-list entries. An entry is an IP
// ("127.0.0.1"), a CIDR prefix ("10.0.0.0/8"), an IP with a port
// ("127.0.0.1:8080", "[::1]:80"), or a host name with or without a port
// ("intranet.example", "localhost:8080"). A host-name entry trusts
// whatever the name resolves to, so it is for names the operator controls.
func NewPolicy(allow []string) (*Policy, error) {
	p := &Policy{guardian: ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())}
	for _, raw := range allow {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		if err := p.add(e); err != nil {
			return nil, fault.InvalidRequest(fmt.Sprintf("unable to read allow-list entry %q: %v (use an IP, a CIDR prefix, IP:port or a host name)", raw, err),
				"allow an IP, a CIDR prefix, IP:port or a host name")
		}
	}
	return p, nil
}

func (p *Policy) add(e string) error {
	if pfx, err := netip.ParsePrefix(e); err == nil {
		p.prefixes = append(p.prefixes, pfx.Masked())
		return nil
	}
	if a, err := netip.ParseAddr(e); err == nil {
		p.prefixes = append(p.prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		return nil
	}
	if ap, err := netip.ParseAddrPort(e); err == nil {
		if ap.Port() == 0 {
			return fmt.Errorf("port 0")
		}
		p.addrs = append(p.addrs, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()))
		return nil
	}
	host, port := e, uint16(0)
	if h, ps, err := net.SplitHostPort(e); err == nil {
		n, err := strconv.ParseUint(ps, 10, 16)
		if err != nil || n == 0 {
			return fmt.Errorf("bad port %q", ps)
		}
		host, port = h, uint16(n)
	}
	if host == "" || strings.ContainsAny(host, "/[]@ ") {
		return fmt.Errorf("not an address or host name")
	}
	if a, ok := parseIPv4Legacy(host); ok {
		ap := netip.AddrPortFrom(a, port)
		if port == 0 {
			p.prefixes = append(p.prefixes, netip.PrefixFrom(a, 32))
		} else {
			p.addrs = append(p.addrs, ap)
		}
		return nil
	}
	p.hosts = append(p.hosts, hostPort{host: strings.ToLower(strings.TrimSuffix(host, ".")), port: port})
	return nil
}

// Check returns nil when host (as written in the URL) may be reached at
// addr, and a *BlockedError otherwise.
func (p *Policy) Check(host string, addr netip.AddrPort) error {
	ip := addr.Addr().Unmap()
	if p.allowed(host, netip.AddrPortFrom(ip, addr.Port())) {
		return nil
	}
	// The guardian sees the address as connected, so IPv4-mapped IPv6
	// forms are refused as such rather than judged by their IPv4 part.
	if err := p.guardian.SafeAddr(addr.Addr()); err != nil {
		return &BlockedError{Host: host, Addr: addr, Reason: classify(addr.Addr())}
	}
	return nil
}

func (p *Policy) allowed(host string, ap netip.AddrPort) bool {
	for _, pfx := range p.prefixes {
		if pfx.Contains(ap.Addr()) {
			return true
		}
	}
	for _, a := range p.addrs {
		if a == ap {
			return true
		}
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, hp := range p.hosts {
		if hp.host == h && (hp.port == 0 || hp.port == ap.Port()) {
			return true
		}
	}
	return false
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// classify names the kind of a refused address for the error message.
func classify(a netip.Addr) string {
	switch {
	case a.Is4In6():
		return "an IPv4-mapped IPv6 address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsUnspecified():
		return "the unspecified address"
	case a.IsPrivate():
		return "a private-network address"
	case a.IsLinkLocalUnicast():
		return "a link-local address (cloud metadata lives here)"
	case cgnat.Contains(a):
		return "a carrier-grade NAT address"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	default:
		return "a special-purpose (non-public) address"
	}
}

// BlockedError is a refusal to connect to a non-public address.
type BlockedError struct {
	// Host is the host as written in the URL.
	Host string
	// Addr is the address it resolved to.
	Addr   netip.AddrPort
	Reason string
}

func (e *BlockedError) Error() string {
	if e.Host != "" && e.Host != e.Addr.Addr().String() {
		return fmt.Sprintf("refused to connect to %s (%s): it is %s; only public web addresses may be read, unless the operator allows this host (--allow-host)", e.Host, e.Addr.Addr(), e.Reason)
	}
	return fmt.Sprintf("refused to connect to %s: it is %s; only public web addresses may be read, unless the operator allows this host (--allow-host)", e.Addr.Addr(), e.Reason)
}

// Fault is an address the reader refuses by policy, and what to do.
func (e *BlockedError) Fault() *fault.Error {
	return fault.Failed(e.Error(), "read a public web address, or have the operator allow this host", nil)
}
