package cli

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/session"
)

func newDoctorCmd(env *Env, g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what stands between this machine, this workspace and a run, and what to do",
		Long: `Doctor checks what a run needs, one line each: the model server answers
(and its version), the model is installed (or the nearest one that is), its
context window holds the largest stage, each tool server starts and lists
its tools (only in a trusted workspace), the search backend answers, the
workspace's trust, and what icm check finds. Each line that fails ends with
the one command or setting that fixes it; the last line is the next step.
The editor's "icm: Doctor" shows the same report with a button per fix.

It exits 1 when a line fails. --json prints the report for scripts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := openSession(env, g, session.Settings{})
			if err != nil {
				return err
			}
			defer sess.Close()
			d := sess.Doctor().Run(cmd.Context())
			if asJSON {
				if err := writeJSON(env, d); err != nil {
					return err
				}
			} else {
				printDiagnosis(env, d, g)
			}
			if d.Failed > 0 {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// marks are how a line's status reads at the terminal.
var marks = map[string]string{session.DiagOK: "✓", session.DiagWarn: "!", session.DiagFail: "✗", session.DiagSkip: "-"}

func printDiagnosis(env *Env, d *session.Diagnosis, g *globalFlags) {
	out := env.Stdout
	where := displayPath(env, d.Workspace)
	if where == "." {
		where = filepath.Base(d.Workspace) // the folder icm runs in: its name
	}
	fmt.Fprintf(out, "icm doctor: %s\n", where)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, l := range d.Lines {
		text := l.Text
		if f := l.Fix; f != nil && (l.Status == session.DiagFail || l.Status == session.DiagWarn) {
			switch {
			case f.Command != "":
				text += " → run: " + f.Command
			case f.Setting != "":
				text += " → set: " + f.Setting
			case f.Install != "":
				text += " → install: " + f.Install
			}
		}
		fmt.Fprintf(tw, "  %s %s\t%s\n", marks[l.Status], l.Title, text)
	}
	tw.Flush()
	if d.Next.Message != "" {
		fmt.Fprintln(out, "next: "+withFlags(d.Next.Message, usedFlags{workspace: g.workspace}))
	}
}
