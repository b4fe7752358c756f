package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/termdoc"
	"github.com/icm-tool/icm/server/internal/trust"
)

type trustFlags struct {
	yes, show, revoke, list, asJSON bool
}

func newTrustCmd(env *Env, g *globalFlags) *cobra.Command {
	f := &trustFlags{}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Show what a workspace would be allowed to run, contact and read, and trust it",
		Long: `Trust lists exactly what the workspace would be allowed: every tool server
command with its arguments, every server address icm or a tool server would
contact, every environment variable read for a key (and where it is sent),
every model it names on a registry other than Ollama's own, every Script
stage, every run: Verify check and every run: expectation of a stage test
case, each command with the files it runs (pinned by their content). At a
terminal it then asks; --yes trusts without asking.

The grant is kept in the user's config folder ($ICM_CONFIG_DIR, else
~/.config/icm on Linux), keyed by the workspace's real path, with the list
itself: when anything on the list changes (a script a command runs
included), the workspace is untrusted again and icm says what changed. A workspace that names nothing to run,
contact or read needs no trust.

Until it is trusted, icm reads and shows the workspace (check, status,
probe, the editor's diagnostics and hovers) but starts none of its
commands, contacts none of its servers and reads none of its variables.
For one command in CI, --trust trusts it without a record.`,
		Example: "  icm trust\n  icm trust --yes -w workspaces/course-research\n  icm trust --show --json\n  icm trust --revoke\n  icm trust --list",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.list {
				return listTrust(env)
			}
			gf := *g
			gf.trust = false // what --trust allows is not a grant
			sess, err := openSession(env, &gf, session.Settings{})
			if err != nil {
				return err
			}
			defer sess.Close()
			switch {
			case f.revoke:
				had, err := sess.Trust().Revoke()
				if err != nil {
					return err
				}
				if had {
					fmt.Fprintf(env.Stdout, "%s is no longer trusted\n", sess.Workspace().Root)
				} else {
					fmt.Fprintf(env.Stdout, "%s was not trusted\n", sess.Workspace().Root)
				}
				return nil
			case f.show && f.asJSON:
				return writeJSON(env, sess.Trust().Decision())
			}
			d := sess.Trust().Decision()
			printTrust(env.Stdout, d)
			if f.show || !d.Needed() {
				return nil
			}
			if d.State == trust.Trusted {
				fmt.Fprintln(env.Stdout, "It is trusted for all of it.")
				return nil
			}
			if !f.yes {
				if !env.Interactive {
					fmt.Fprintln(env.Stderr, "icm: not trusted: nobody was asked (no terminal)\nhint: trust exactly this list with icm trust --yes")
					return &ExitError{Code: 1}
				}
				if !askYes(env, "Trust this workspace for all of the above? [y/N] ") {
					fmt.Fprintln(env.Stdout, "Not trusted.")
					return &ExitError{Code: 1}
				}
			}
			return grantShown(env, sess, d, "icm trust")
		},
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { printTrustHelp(env, c) })
	fl := cmd.Flags()
	fl.BoolVarP(&f.yes, "yes", "y", false, "trust without asking")
	fl.BoolVar(&f.show, "show", false, "only show what trust covers and whether it is trusted")
	fl.BoolVar(&f.revoke, "revoke", false, "remove the workspace's trust")
	fl.BoolVar(&f.list, "list", false, "list every trusted workspace")
	fl.BoolVar(&f.asJSON, "json", false, "with --show, print the decision as JSON")
	return cmd
}

// printTrustHelp renders the trust page for the terminal, then the usage
// and the flags (`icm help trust`, `icm trust --help`).
func printTrustHelp(env *Env, c *cobra.Command) {
	page, err := helpTopics.ReadFile("helptopics/trust.md")
	if err != nil {
		fmt.Fprintf(env.Stderr, "icm: unable to read the trust help page: %v\n", err)
		return
	}
	_, _ = io.WriteString(env.Stdout, termdoc.Render(page, helpWidth(env)))
	fmt.Fprintf(env.Stdout, "\nUsage:\n  %s\n\nExamples:\n%s\n\nFlags:\n%s", c.UseLine(), c.Example, c.Flags().FlagUsages())
}

// grantShown trusts the workspace for exactly the parts d showed.
func grantShown(env *Env, sess *session.Session, d trust.Decision, by string) error {
	rec, err := sess.Trust().Grant(d.Hash, by)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Trusted %s for %s.\n", rec.Path, rec.Parts.Count())
	return nil
}

// printTrust writes what a workspace names and its state, for a person.
func printTrust(w io.Writer, d trust.Decision) {
	fmt.Fprintf(w, "Workspace %s\n", trust.Printable(d.Root))
	if !d.Needed() {
		fmt.Fprintln(w, "It names nothing to run, contact or read: it needs no trust.")
		return
	}
	fmt.Fprintf(w, "Trusting it allows icm to do exactly this (%s):\n\n", d.Parts.Count())
	for _, p := range d.Parts {
		lines := strings.Split(trust.Printable(p.Value), "\n")
		fmt.Fprintf(w, "  %-8s %s\n", p.Kind.Verb(), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "  %-8s %s\n", "", l)
		}
		fmt.Fprintf(w, "  %-8s from %s\n", "", trust.Printable(p.Where))
		for _, pin := range p.Pins {
			fmt.Fprintf(w, "  %-8s %s\n", "", trust.Printable(pin.String()))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Now: %s\n", trust.Printable(d.Summary()))
}

// askYes asks a question at the terminal; only "y" or "yes" is yes.
func askYes(env *Env, question string) bool {
	fmt.Fprint(env.Stderr, question)
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(env.Stderr)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// listTrust prints every trusted workspace.
func listTrust(env *Env) error {
	store, err := trust.StoreFor(env.Getenv)
	if err != nil {
		return err
	}
	recs, problems := store.List()
	for _, p := range problems {
		fmt.Fprintf(env.Stderr, "warning: %s\n", trust.Printable(p.Error()))
	}
	if len(recs) == 0 {
		fmt.Fprintln(env.Stdout, "No workspace is trusted.")
		return nil
	}
	for _, r := range recs {
		fmt.Fprintf(env.Stdout, "%s\t%s, %s, %s\n", trust.Printable(r.Path), r.Time.Local().Format("2006-01-02 15:04"), trust.Printable(r.By), r.Parts.Count())
	}
	return nil
}

// trusted makes sure a command that acts for the workspace may: trusted,
// it returns sess; untrusted at a terminal, it shows what trust covers
// and asks, and on yes returns a new session that acts on the grant;
// otherwise it returns the refusal, which names icm trust and --trust.
func trusted(env *Env, sess *session.Session, what, by string, reopen func() (*session.Session, error)) (*session.Session, error) {
	err := sess.Trust().Require(what)
	if err == nil || !env.Interactive {
		return sess, err
	}
	d := sess.Trust().Decision()
	printTrust(env.Stderr, d)
	if !askYes(env, "Trust this workspace for all of the above? [y/N] ") {
		return sess, err
	}
	if err := grantShown(env, sess, d, by); err != nil {
		return sess, err
	}
	sess.Close()
	next, err := reopen()
	if err != nil {
		return sess, err // closed, and safe to close again
	}
	return next, nil
}

// printTrustLine says in one line whether the workspace is trusted, when
// it names anything trust covers.
func printTrustLine(env *Env, sess *session.Session) {
	d := sess.Trust().Decision()
	if !d.Needed() {
		return
	}
	line := "trust: " + d.Summary()
	if !d.Allowed() {
		line += " (icm trust shows it all and trusts it)"
	}
	fmt.Fprintln(env.Stdout, trust.Printable(line))
}

// inputIsTerminal reports whether r is a terminal a person types at.
func inputIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
