package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/export"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/termsafe"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newExportCmd(env *Env, g *globalFlags) *cobra.Command {
	var out, sources, title, style string
	cmd := &cobra.Command{
		Use:   "export FILE|STAGE",
		Short: "Write a Markdown file or a stage's output as one self-contained HTML page",
		Long: `export renders Markdown as one HTML file that needs nothing else: code
highlighted with inline CSS, a table of contents, and every web link turned
into a numbered citation pointing at a reference list at the end. Raw HTML in
the Markdown is not passed through and the page carries a policy that
forbids scripts and outside resources.

The argument is a Markdown file, or the name of a stage, whose first
Markdown output is exported. --sources names a file (such as a sources stage's
output) whose link texts and section headings title the references. The
page goes next to the input with an .html extension unless -o says otherwise
(-o - prints it).`,
		Example: "  icm export pipeline/07-code-check/output/article.md --sources pipeline/01-sources/output/sources.md -o article.html\n  icm export 03-outline -o -",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, err := env.Getwd()
			if err != nil {
				return err
			}
			ws, _ := openWorkspace(env, g)
			in, err := exportInput(ws, cwd, args[0])
			if err != nil {
				return err
			}
			src, err := readNamed(ws, in)
			if err != nil {
				return fmt.Errorf("unable to read %s: %w", in, err)
			}
			opts := export.Options{Title: title, Style: style}
			if sources != "" {
				data, err := readNamed(ws, resolve(cwd, sources))
				if err != nil {
					return fmt.Errorf("unable to read the sources file: %w", err)
				}
				opts.Sources = export.SourcesFrom(data)
			}
			page, err := export.HTML(src, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
			if out == "-" {
				_, err := termsafe.Raw(env.Stdout).Write(page.HTML) // the page, byte for byte
				return err
			}
			dst := out
			if dst == "" {
				dst = strings.TrimSuffix(in, filepath.Ext(in)) + ".html"
			}
			dst = resolve(cwd, dst)
			if err := writeNamed(ws, dst, page.HTML); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "wrote %s (%d bytes, %d references)\n", displayPath(env, dst), len(page.HTML), len(page.References))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "the HTML file to write (- for standard output)")
	fl.StringVar(&sources, "sources", "", "a Markdown file that titles the cited URLs")
	fl.StringVar(&title, "title", "", "the page title (default: the first # heading)")
	fl.StringVar(&style, "style", export.DefaultStyle, "the code colours: "+strings.Join(export.Styles(), " or "))
	return cmd
}

// exportInput finds the Markdown file to export: a path, or a stage's
// first Markdown output.
func exportInput(ws *workspace.Workspace, cwd, arg string) (string, error) {
	p := resolve(cwd, arg)
	if ws != nil && ws.Disk.Contains(p) {
		if _, err := ws.Disk.Lstat(p); err == nil {
			return p, nil
		}
	} else if _, err := os.Lstat(p); err == nil {
		return p, nil
	}
	if ws == nil {
		return "", fault.NotFound(fmt.Sprintf("no file %s, and no workspace to find a stage of that name in", arg),
			"name a Markdown file, or a stage of the workspace")
	}
	st, err := ws.Stage(arg)
	if err != nil {
		return "", fault.NotFound(fmt.Sprintf("%s is neither a file nor a stage: %v", arg, err), "name a Markdown file, or a stage of the workspace")
	}
	src, err := ws.Files.ReadFile(st.Contract)
	if err != nil {
		return "", err
	}
	for _, rel := range state.OutputPaths(ws, st, contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars})) {
		if strings.EqualFold(filepath.Ext(rel), ".md") {
			if _, err := ws.Disk.Lstat(rel); err == nil {
				return ws.Abs(rel), nil
			}
		}
	}
	f := fault.NotRun(st.Name)
	f.Msg = fmt.Sprintf("stage %s has no Markdown output on disk yet; run it first", st.Name)
	return "", f
}

// readNamed reads a file named on the command line: through the
// workspace's Root when it is in the workspace (a link out of it is
// refused), else as a regular file anywhere.
func readNamed(ws *workspace.Workspace, p string) ([]byte, error) {
	if ws != nil && ws.Disk.Contains(p) {
		return ws.Disk.ReadFile(p)
	}
	return workspace.ReadFileAt(p, 0)
}

// writeNamed writes a file named on the command line, through the
// workspace's Root when it is in the workspace.
func writeNamed(ws *workspace.Workspace, p string, data []byte) error {
	if ws != nil && ws.Disk.Contains(p) {
		return ws.Disk.WriteFile(p, data, 0o644)
	}
	return workspace.WriteFileAt(p, data, 0o644)
}
