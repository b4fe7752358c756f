// Package closedport gives tests a loopback address where nothing
// listens, and where nothing can start to listen while the test runs.
//
// Binding 127.0.0.1:0, noting the port and closing the listener gives an
// address that refuses connections only until another process binds the
// same port, which a machine running many tests at once may do. A socket
// that is bound but never listens keeps the port: connections to it are
// refused (the kernel answers with a reset), and no other socket may bind
// it (it is bound without SO_REUSEADDR) until the test ends.
package closedport

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// Addr returns "127.0.0.1:PORT", a port that refuses connections until
// the test ends.
func Addr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("closedport: socket: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("closedport: bind: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("closedport: getsockname: %v", err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("closedport: bound to %T", sa)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(in.Port))
}

// URL is Addr as an http:// URL.
func URL(t testing.TB) string {
	t.Helper()
	return "http://" + Addr(t)
}
