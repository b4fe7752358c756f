package closedport

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// The address refuses connections, and nothing else can listen on it.
func TestAddrRefusesAndStaysTaken(t *testing.T) {
	addr := Addr(t)
	if c, err := net.Dial("tcp", addr); !errors.Is(err, syscall.ECONNREFUSED) {
		if c != nil {
			c.Close()
		}
		t.Errorf("dialling %s: %v, want the connection refused", addr, err)
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Errorf("another listener bound %s", addr)
	}
}
