package codecheck

import (
	"context"
	"fmt"
	"testing"
)

// tenBlocks is an article with seven Python and three Go blocks, all passing.
func tenBlocks() []byte {
	var blocks []string
	for i := 0; i < 7; i++ {
		blocks = append(blocks, fence("python", fmt.Sprintf("import json\nprint(json.dumps({'block': %d}))\n", i)))
	}
	for i := 0; i < 3; i++ {
		blocks = append(blocks, fence("go", fmt.Sprintf("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(%d) }\n", i)))
	}
	return []byte(doc(blocks...))
}

// BenchmarkCodeCheck10Blocks is the code-check stage's work for an article
// with 10 blocks: each parsed and run in its own sandbox (Go blocks built
// with the warm shared build cache).
func BenchmarkCodeCheck10Blocks(b *testing.B) {
	needSandbox(b)
	src := tenBlocks()
	c := checker()
	// Warm the Go build cache once, as a machine that has checked Go before.
	c.CheckDocument(context.Background(), src, true)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range c.CheckDocument(context.Background(), src, true) {
			if !r.OK {
				b.Fatalf("block %d: %s", r.Index, r.Error)
			}
		}
	}
}

// BenchmarkParseOnly10Blocks is `code-blocks parse` on the same article.
func BenchmarkParseOnly10Blocks(b *testing.B) {
	needSandbox(b)
	src := tenBlocks()
	c := checker()
	for i := 0; i < b.N; i++ {
		c.CheckDocument(context.Background(), src, false)
	}
}
