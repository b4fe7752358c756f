package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/research"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newResearchCmd(env *Env, g *globalFlags) *cobra.Command {
	var (
		out, title, model, search, read string
		rounds, queries, results        int
	)
	cmd := &cobra.Command{
		Use:   "research",
		Short: "Research in rounds for a Script stage: the model names what is missing, search and the reader fill it",
		Long: `research runs in the Script stage that calls it (ICM_STAGE). Each round the
model gets the stage's assembled context (its Process and inputs, such as the
sources) plus the research so far, and names what is still missing as search
queries (structured output). Each new query goes through the search tool;
the best new results are read with the reader tool, and the findings are
appended with their sources. It stops after --rounds rounds, or earlier when
the model names nothing new. The tools are the ones the stage's ## Tools
section allows.`,
		Example: "  \"$ICM_BIN\" research --out \"$ICM_OUTPUT/research.md\" --rounds 3",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := openStep(env, g, model, true)
			if err != nil {
				return err
			}
			defer sc.close()
			st, err := sc.ws.Stage(sc.stage)
			if err != nil {
				return fmt.Errorf("research runs inside a stage (ICM_STAGE, or the stage folder as the current folder): %w", err)
			}
			rep := sc.sess.Check(nil)
			sr := rep.Stage(st.Name)
			if sr == nil || sr.Contract == nil {
				return fmt.Errorf("stage %s has no readable contract", st.Name)
			}
			actx, err := assemble.Stage(sc.ws, st, sr.Contract, assemble.Options{ProducedBy: rep.ProducedBy})
			if err != nil {
				return err
			}
			allow := sr.Contract.Tools.Allowed()
			if len(allow) == 0 {
				return fmt.Errorf("stage %s allows no tools; list the search and reader tools under ## Tools", st.Name)
			}
			sess, err := sc.sess.OpenTools(cmd.Context(), allow)
			if err != nil {
				return fmt.Errorf("stage %s: unable to start its tools: %w", st.Name, err)
			}
			defer sess.Close()
			r := &research.Researcher{Client: sc.client, Model: sc.model, Tools: sess, Search: search, Read: read,
				Rounds: rounds, Queries: queries, Results: results, Stage: st.Name, Observe: sc.observer("")}
			done, err := r.Run(cmd.Context(), actx.System, actx.User)
			if err != nil {
				return err
			}
			if len(done) == 0 {
				fmt.Fprintln(env.Stderr, "the model named nothing missing in the first round; the research file holds no findings")
			}
			text := research.Markdown(title, done)
			if out == "" {
				_, err := fmt.Fprint(env.Stdout, text)
				return err
			}
			cwd, err := env.Getwd()
			if err != nil {
				return err
			}
			if err := workspace.WriteFileAt(resolve(cwd, out), []byte(text), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%d round(s) of research written to %s\n", len(done), out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "the research file to write (default: standard output)")
	fl.StringVar(&title, "title", "Research", "the research file's title")
	fl.IntVar(&rounds, "rounds", 3, "rounds at most")
	fl.IntVar(&queries, "queries", 3, "new queries per round at most")
	fl.IntVar(&results, "results", 2, "result pages read per query")
	fl.StringVar(&search, "search", "search-server_search", "the search tool (server_tool)")
	fl.StringVar(&read, "read", "browser-server_summarize", "the reader tool (server_tool), called with url and question")
	fl.StringVar(&model, "model", "", "model (default $ICM_MODEL, else config.toml)")
	return cmd
}
