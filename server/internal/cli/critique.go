package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/critic"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

type critiqueFlags struct {
	rubric, verdict, report, sendBack, model string
	maxSendBacks, chunkChars                 int
}

func newCritiqueCmd(env *Env, g *globalFlags) *cobra.Command {
	f := &critiqueFlags{}
	cmd := &cobra.Command{
		Use:   "critique ARTICLE",
		Short: "Judge an article with the model and decide in code whether it passes",
		Long: `critique asks the model to score ARTICLE (technical depth, code quality,
structure and clarity, citation fidelity, 0-10 each with a reason) and to
list specific critiques and required revisions, as JSON that must match a
fixed schema (Ollama structured output). An invalid answer is asked for once
more, then reported. A long article is judged in parts of whole sections.

The overall score (0-100) and the pass decision are computed from the
category scores and the thresholds in the stage contract's ## Thresholds
section (` + "`- technical_depth: 6`, `- overall: 70`, `- weight code_quality: 2`" + `), never
taken from the model.

--verdict writes the decision as JSON, --report as Markdown. With --send-back
FILE a failing article's revisions are written to FILE (a working input of
the stage that wrote the article), which makes that stage run again; at most
--max-send-backs times.`,
		Example: "  \"$ICM_BIN\" critique ../04-draft/output/article.md --rubric references/rubric.md \\\n    --verdict \"$ICM_OUTPUT/verdict.json\" --report \"$ICM_OUTPUT/critique.md\" --send-back ../04-draft/feedback.md",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := openStep(env, g, f.model, true)
			if err != nil {
				return err
			}
			defer sc.close()
			cwd, err := env.Getwd()
			if err != nil {
				return err
			}
			article, err := workspace.ReadFileAt(resolve(cwd, args[0]), 0)
			if err != nil {
				return fmt.Errorf("unable to read the article: %w", err)
			}
			req := session.CritiqueRequest{Article: string(article), ChunkChars: f.chunkChars, MaxSendBacks: f.maxSendBacks}
			if f.rubric != "" {
				data, err := workspace.ReadFileAt(resolve(cwd, f.rubric), 0)
				if err != nil {
					return fmt.Errorf("unable to read the rubric: %w", err)
				}
				req.Rubric = string(data)
			}
			if f.sendBack != "" {
				req.SendBack = resolve(cwd, f.sendBack)
			}
			v, th, err := sc.step.Critique(cmd.Context(), req)
			if err != nil {
				return err
			}
			if v.SendBack != nil {
				v.SendBack.File = filepath.ToSlash(f.sendBack)
			}
			if f.verdict != "" {
				data, _ := json.MarshalIndent(v, "", "  ")
				if err := workspace.WriteFileAt(resolve(cwd, f.verdict), append(data, '\n'), 0o644); err != nil {
					return err
				}
			}
			if f.report != "" {
				if err := workspace.WriteFileAt(resolve(cwd, f.report), []byte(v.Markdown()), 0o644); err != nil {
					return err
				}
			}
			verdict := "passes"
			if !v.Pass {
				verdict = "does not pass"
			}
			fmt.Fprintf(env.Stdout, "the article %s: overall %.1f (needs %.0f)\n", verdict, v.Overall, th.Overall)
			if v.SendBack != nil && v.SendBack.Sent {
				fmt.Fprintln(env.Stdout, v.SendBack.Message)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rubric, "rubric", "", "a Markdown file of extra judging guidance")
	fl.StringVar(&f.verdict, "verdict", "", "write the verdict as JSON here")
	fl.StringVar(&f.report, "report", "", "write the verdict as Markdown here")
	fl.StringVar(&f.sendBack, "send-back", "", "feedback file of the writing stage, rewritten when the article fails")
	fl.IntVar(&f.maxSendBacks, "max-send-backs", 1, "how many times a failing article is sent back")
	fl.IntVar(&f.chunkChars, "chunk-chars", critic.DefaultChunkChars, "characters of article judged per model call")
	fl.StringVar(&f.model, "model", "", "model (default $ICM_MODEL, else config.toml)")
	return cmd
}
