package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
)

// own is the page reader's permit: the pages it reads are the model's
// or the person's choice, held to the address policy at every connect,
// never something a workspace names.
func own() act.Permit { return act.Own("the page reader, under its address policy") }

// contact is a connection the page reader opens.
func contact() act.Action {
	return act.Action{Kind: act.Contact, Reason: "the page reader, under its address policy"}
}

// Resolver looks host names up. *net.Resolver satisfies it; tests inject
// one whose answers change between calls (DNS rebinding).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer connects only to addresses the Policy allows. The check runs in
// net.Dialer's Control hook, on the address actually being connected,
// after name resolution: a name that resolves to something else by the
// time of the connection cannot slip past an earlier check.
type Dialer struct {
	Policy   *Policy
	Resolver Resolver
	// Timeout bounds one TCP connect.
	Timeout time.Duration
	// Guard, when set, is one more check at connect time after the policy
	// (tests use it to make sure no connection leaves loopback).
	Guard func(netip.AddrPort) error
}

// DialContext connects to addr ("host:port") over network.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("unable to read address %q: %w", addr, err)
	}
	ips, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var firstErr error
	for _, ip := range ips {
		conn, err := act.Dial(ctx, own(), contact(), network, net.JoinHostPort(ip.String(), port), act.Dialing{Timeout: d.Timeout, Control: d.control(host)})
		if err == nil {
			return conn, nil
		}
		var blocked *BlockedError
		if errors.As(err, &blocked) {
			// A refused address ends the dial: a name with one public and
			// one private answer is not worth trying further.
			return nil, blocked
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// resolve returns the addresses host names, literally or through DNS.
func (d *Dialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := hostAddr(host); ok {
		return []netip.Addr{a}, nil
	}
	// RFC 6761: localhost names are loopback and never go to DNS.
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return []netip.Addr{netip.IPv6Loopback(), netip.AddrFrom4([4]byte{127, 0, 0, 1})}, nil
	}
	r := d.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("unable to resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("unable to resolve %s: no addresses", host)
	}
	return ips, nil
}

// control is the connect-time check for one URL host.
func (d *Dialer) control(host string) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("unable to read connect address %q: %w", address, err)
		}
		if err := d.Policy.Check(host, ap); err != nil {
			return err
		}
		if d.Guard != nil {
			return d.Guard(ap)
		}
		return nil
	}
}

// Precheck resolves host and checks every answer against the policy, so
// an obviously refused URL fails before any connection with a clear
// message. It is a courtesy: the connect-time check is the one that holds.
func (d *Dialer) Precheck(ctx context.Context, host, port string) error {
	ips, err := d.resolve(ctx, host)
	if err != nil {
		return err
	}
	for _, ip := range ips {
		ap, err := netip.ParseAddrPort(net.JoinHostPort(ip.String(), port))
		if err != nil {
			return fmt.Errorf("unable to read address of %s: %w", host, err)
		}
		if err := d.Policy.Check(host, ap); err != nil {
			return err
		}
	}
	return nil
}
