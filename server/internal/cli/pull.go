package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/termsafe"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newPullCmd(env *Env, g *globalFlags) *cobra.Command {
	var model string
	cmd := &cobra.Command{
		Use:   "pull [MODEL]",
		Short: "Download a model into the Ollama server",
		Long: `Pull asks the Ollama server (OLLAMA_HOST, or [model] base_url in config.toml)
to download MODEL, showing its progress. Without MODEL it pulls the model the
workspace's config.toml names ([model] name), or icm's default model.`,
		Example: "  icm pull\n  icm pull qwen3:8b\n  icm pull -w workspaces/course-research",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				model = args[0]
			}
			pull, err := preparePull(env, g, model)
			if err != nil {
				return err
			}
			from := "from " + pull.URL
			if pull.URL == "" {
				from = "onto every server of [[model.servers]]"
			}
			if pull.Source != "" {
				fmt.Fprintf(env.Stderr, "pulling %s (%s) %s\n", pull.Model, pull.Source, from)
			} else {
				fmt.Fprintf(env.Stderr, "pulling %s %s\n", pull.Model, from)
			}
			// The bar redraws with carriage returns: it writes to the
			// stream itself, and escapes what the server says (pullView).
			view := newPullView(termsafe.Raw(env.Stderr), isTerminal(env.Stderr))
			err = pull.Run(cmd.Context(), view.update)
			view.finish()
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "pulled %s\n", pull.Model)
			return nil
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "the model to pull (same as the MODEL argument)")
	return cmd
}

// preparePull makes ready the pull of model ("" for the one config.toml
// names) through a session: over the workspace when there is one, else
// over the -w folder or the current one, opened as a workspace for its
// config.toml (else icm's defaults).
func preparePull(env *Env, g *globalFlags, model string) (*session.ModelPull, error) {
	sess, err := openSession(env, g, session.Settings{})
	if err != nil {
		cwd, err := env.Getwd()
		if err != nil {
			return nil, err
		}
		dir := g.workspace
		if dir == "" {
			dir = cwd
		} else if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		ws, err := workspace.Open(dir, nil)
		if err != nil {
			return nil, err
		}
		defer ws.Close()
		sess = session.Open(ws, sessionOptions(env, g, session.Settings{}))
	}
	defer sess.Close()
	if cerr := sess.Workspace().ConfigErr; cerr != nil {
		return nil, cerr
	}
	return sess.ModelServer().PreparePull(model)
}

// pullView draws pull progress: one bar per layer on a terminal, plain
// lines (status changes and every quarter of a layer) elsewhere, where a
// redrawn bar would fill a log with carriage returns. It writes to the
// stream itself (the bar's carriage returns are its own) and escapes what
// the server sends.
type pullView struct {
	w        io.Writer
	terminal bool
	status   string
	digest   string
	bar      *progressbar.ProgressBar
	quarter  int64
}

func newPullView(w io.Writer, terminal bool) *pullView { return &pullView{w: w, terminal: terminal} }

func (v *pullView) update(p report.PullProgress) {
	if p.Digest == "" || p.Total <= 0 {
		v.endLayer()
		if p.Status != v.status {
			fmt.Fprintln(v.w, termsafe.String(p.Status))
		}
		v.status = p.Status
		return
	}
	if p.Digest != v.digest {
		v.endLayer()
		v.digest = p.Digest
		v.status = p.Status
		if v.terminal {
			v.bar = progressbar.NewOptions64(p.Total,
				progressbar.OptionSetWriter(v.w),
				progressbar.OptionSetDescription(termsafe.String(layerName(p))),
				progressbar.OptionShowBytes(true),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(v.w) }),
			)
		} else {
			v.quarter = -1
		}
	}
	if v.bar != nil {
		if v.bar.GetMax64() != p.Total {
			v.bar.ChangeMax64(p.Total)
		}
		_ = v.bar.Set64(p.Completed)
		return
	}
	if q := p.Completed * 4 / p.Total; q > v.quarter {
		v.quarter = q
		fmt.Fprintf(v.w, "%s: %d%% (%s of %s)\n", termsafe.String(layerName(p)), q*25, humanBytes(p.Completed), humanBytes(p.Total))
	}
}

// endLayer closes the current layer's bar, if any.
func (v *pullView) endLayer() {
	if v.bar != nil {
		if !v.bar.IsFinished() {
			_ = v.bar.Finish()
		}
		v.bar = nil
	}
	v.digest = ""
}

func (v *pullView) finish() { v.endLayer() }

// layerName is "pulling 1a2b3c4d5e6f": Ollama's status for a layer.
func layerName(p report.PullProgress) string {
	if p.Status != "" {
		return p.Status
	}
	d := strings.TrimPrefix(p.Digest, "sha256:")
	return "pulling " + d[:min(12, len(d))]
}

// humanBytes writes a size the way download tools do (1.5 GB).
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	d, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		d *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(d), "kMGTPE"[exp])
}
