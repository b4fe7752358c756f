package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/research"
	"github.com/icm-tool/icm/server/internal/session"
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
			done, err := sc.step.Research(cmd.Context(), session.ResearchRequest{Search: search, Read: read,
				Rounds: rounds, Queries: queries, Results: results})
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
