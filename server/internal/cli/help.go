package cli

import (
	"embed"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	contractsschema "github.com/icm-tool/icm/contracts-schema"
	"github.com/icm-tool/icm/server/internal/termdoc"
	"github.com/icm-tool/icm/server/internal/termsafe"
)

//go:embed helptopics/*.md
var helpTopics embed.FS

// helpTopic is a reference page `icm help NAME` prints.
type helpTopic struct {
	name, short string
	// text returns the page's Markdown.
	text func() ([]byte, error)
}

func topicFile(name string) func() ([]byte, error) {
	return func() ([]byte, error) { return helpTopics.ReadFile("helptopics/" + name + ".md") }
}

// topics lists the reference pages, in the order help shows them.
var topics = []helpTopic{
	{"contract", "The stage contract grammar: every section of CONTEXT.md", func() ([]byte, error) { return []byte(contractsschema.Grammar), nil }},
	{"config", "config.toml: model, servers, workflow settings, MCP servers", topicFile("config")},
	{"layers", "The five context layers and what each stage loads", topicFile("layers")},
	{"verify", "Verify checks: deterministic tests of a stage's output", topicFile("verify")},
	{"gates", "Review gates, approval and stage states", topicFile("gates")},
	{"agents", "Coding agents running stages through icm (icm mcp workspace)", topicFile("agents")},
}

// addHelpTopics adds each topic as a help-only command, which cobra lists
// under "Additional help topics" and `icm help NAME` prints; the page is
// rendered for the terminal (plain text, filled to its width).
func addHelpTopics(root *cobra.Command, env *Env) {
	for _, t := range topics {
		t := t
		cmd := &cobra.Command{Use: t.name, Short: t.short}
		cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
			src, err := t.text()
			if err != nil {
				fmt.Fprintf(env.Stderr, "icm: unable to read the %s help page: %v\n", t.name, err)
				return
			}
			_, _ = io.WriteString(env.Stdout, termdoc.Render(src, helpWidth(env)))
		})
		root.AddCommand(cmd)
	}
}

// helpWidth is the width to fill pages to: COLUMNS, else the terminal's,
// else 80; never more than 100, which reads badly.
func helpWidth(env *Env) int {
	w := 0
	if n, err := strconv.Atoi(strings.TrimSpace(env.Getenv("COLUMNS"))); err == nil && n > 0 {
		w = n
	} else if f, ok := termsafe.Raw(env.Stdout).(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil {
			w = n
		}
	}
	if w <= 0 {
		w = 80
	}
	return min(w, 100)
}
