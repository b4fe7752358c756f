package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fetch"
	"github.com/icm-tool/icm/server/internal/mcpserver/ingest"
)

func newMCPIngestCmd(env *Env) *cobra.Command {
	var (
		tf           transportFlags
		root         string
		allow        []string
		noClone      bool
		cloneTimeout time.Duration
		maxChars     int
		maxFileChars int
	)
	cmd := &cobra.Command{
		Use:   "ingest",
		Short: "Read repositories and local files (tools: ingest_repo, ingest_files)",
		Long: `Read source material that is not a web page. ingest_repo turns a code
repository (a folder under --root, or an http(s) git URL cloned at depth 1)
into one digest: the tree, then each file, honouring .gitignore, skipping
binary files, cut to size. ingest_files reads Markdown, text, HTML (its main
content) and PDF (its text) under --root.

Paths outside --root (also through symlinks) are refused. git's connections
go through a proxy that refuses loopback, private and other special-purpose
addresses unless --allow-host names them; only http(s) URLs are cloned.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			logger := newLogger(env)
			cwd, err := env.Getwd()
			if err != nil {
				return err
			}
			if root == "" {
				root = cwd
			} else if !filepath.IsAbs(root) {
				root = filepath.Join(cwd, root)
			}
			d := ingest.Deps{Root: root, Version: Version, Limits: ingest.Limits{MaxChars: maxChars, MaxFileChars: maxFileChars, MaxFiles: ingest.DefaultLimits.MaxFiles}}
			if !noClone {
				pol, err := fetch.NewPolicy(allow)
				if err != nil {
					return fmt.Errorf("--allow-host: %w", err)
				}
				proxy, err := fetch.StartProxy(&fetch.Dialer{Policy: pol, Timeout: 15 * time.Second})
				if err != nil {
					return err
				}
				defer proxy.Close()
				d.Cloner = &ingest.Cloner{Proxy: proxy, Timeout: cloneTimeout}
			}
			logger.Info("ingest server", "root", root, "clone", !noClone, "allow", strings.Join(allow, ","))
			return serveMCP(cmd.Context(), env, logger, ingest.NewServer(d), serving{addr: tf.http})
		},
	}
	tf.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&root, "root", "", "the folder local paths are read from (default: the current folder, the workspace when icm starts it)")
	fl.StringArrayVar(&allow, "allow-host", nil, "also allow cloning from this non-public host (IP, CIDR, IP:port or name); repeatable")
	fl.BoolVar(&noClone, "no-clone", false, "refuse git URLs; read local folders only")
	fl.DurationVar(&cloneTimeout, "clone-timeout", 2*time.Minute, "longest time one clone may take")
	fl.IntVar(&maxChars, "max-chars", ingest.DefaultLimits.MaxChars, "largest result, in characters")
	fl.IntVar(&maxFileChars, "max-file-chars", ingest.DefaultLimits.MaxFileChars, "largest single file, in characters")
	return cmd
}
