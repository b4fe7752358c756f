// Command testreport reads `go test -json` on stdin and prints the run as
// a person wants it, ending with what failed and why, the skipped tests
// and why, and the counts (make test pipes the whole suite through it).
// It exits 1 when a test or a package failed or a package did not build.
//
//	go test -json ./... | testreport
package main

import (
	"fmt"
	"os"

	"github.com/icm-tool/icm/server/internal/testutil/testreport"
)

func main() {
	sum, err := testreport.Run(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if !sum.OK() {
		os.Exit(1)
	}
}
