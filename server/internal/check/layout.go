package check

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// layoutFindings says which identity file and which stages folder icm
// uses when they are not the usual ones, and says plainly when a folder
// has no stages at all (or holds workspaces rather than stages).
func (c *checker) layoutFindings() {
	ws := c.ws
	anchor := c.anchor()
	note := func(file string, sev contract.Severity, code, msg string) {
		c.add(contract.Finding{File: file, Severity: sev, Code: code, Message: msg})
	}
	switch {
	case ws.Identity != "" && ws.Identity != workspace.IdentityFile:
		note(ws.Abs(ws.Identity), contract.Info, contract.CodeIdentity,
			fmt.Sprintf("layer 0 (identity) is %s: there is no %s", ws.Identity, workspace.IdentityFile))
	case ws.Identity == "" && len(ws.Stages) > 0:
		note(anchor, contract.Info, contract.CodeIdentity,
			fmt.Sprintf("there is no %s: the stages run without layer 0 (identity)", strings.Join(workspace.IdentityFiles, ", ")))
	}
	if len(ws.Stages) > 0 && !c.exists(ws.Abs(workspace.RoutingFile), false) {
		note(anchor, contract.Info, contract.CodeNoRouting,
			fmt.Sprintf("there is no %s at the workspace root: the stages run without layer 1 (routing)", workspace.RoutingFile))
	}
	c.includes()
	switch {
	case len(ws.Stages) > 0 && ws.StagesWhy != "":
		where := "in " + ws.StagesDir + "/"
		if ws.StagesDir == "." {
			where = "at the workspace root"
		}
		note(anchor, contract.Info, contract.CodeNoStages,
			fmt.Sprintf("the stages are the numbered folders %s (%s); [workspace] stages in config.toml names the folder", where, ws.StagesWhy))
	case len(ws.Stages) > 0 && ws.StagesFrom == workspace.StagesFound:
		note(anchor, contract.Info, contract.CodeNoStages,
			fmt.Sprintf("the stages are the numbered folders in %s/ (neither pipeline/ nor stages/ exists); [workspace] stages in config.toml names the folder", ws.StagesDir))
	case len(ws.Stages) > 0 && ws.StagesFrom == workspace.StagesRoot:
		note(anchor, contract.Info, contract.CodeNoStages,
			"the stages are the numbered folders at the workspace root (neither pipeline/ nor stages/ exists); [workspace] stages in config.toml names the folder")
	case len(ws.Stages) > 0:
	case len(ws.Nested) > 0:
		note(anchor, contract.Info, contract.CodeNoStages,
			fmt.Sprintf("this folder holds workspaces, not stages: %s; run icm in one of them (icm check -w %s)", strings.Join(ws.Nested, ", "), ws.Nested[0]))
	case ws.StagesFrom == workspace.StagesConfigured && !c.exists(ws.Abs(ws.StagesDir), true):
		note(filepath.Join(ws.Root, "config.toml"), contract.Warning, contract.CodeNoStages,
			fmt.Sprintf("[workspace] stages names %s/, which does not exist; the workspace has no stages", ws.StagesDir))
	default:
		note(anchor, contract.Warning, contract.CodeNoStages,
			"the workspace has no stages: icm looks for numbered folders holding a CONTEXT.md (such as 01-first/) in pipeline/, stages/ or another top-level folder; [workspace] stages in config.toml names the folder")
	}
}

// anchor is the file that findings about the workspace as a whole are
// reported on: its routing file, its identity file, or the folder.
func (c *checker) anchor() string {
	for _, name := range []string{workspace.RoutingFile, c.ws.Identity} {
		if p := c.ws.Abs(name); name != "" && c.exists(p, false) {
			return p
		}
	}
	return c.ws.Root
}

// exists reports whether p is there and is a folder (dir) or a file.
func (c *checker) exists(p string, dir bool) bool {
	info, err := c.ws.Files.Stat(p)
	return err == nil && info.IsDir() == dir
}

// includes reports the `@path` lines of the identity and routing files
// that icm cannot follow: the model would get the pointer, not the text.
func (c *checker) includes() {
	for _, name := range []string{c.ws.Identity, workspace.RoutingFile} {
		if name == "" {
			continue
		}
		_, incs, err := assemble.Layered(c.ws, name)
		if err != nil {
			continue
		}
		for _, inc := range incs {
			if inc.Err == nil {
				continue
			}
			src, _ := c.ws.Files.ReadFile(c.ws.Abs(inc.File))
			c.add(contract.Finding{File: c.ws.Abs(inc.File), Range: lineSpan(src, inc.Line), Severity: contract.Warning, Code: contract.CodeInclude,
				Message: fmt.Sprintf("@%s: icm cannot include it (%v), so the model gets this line as written", inc.Path, inc.Err)})
		}
	}
}

// lineSpan is the range of the 1-based line n of src.
func lineSpan(src []byte, n int) document.Range {
	start := 0
	for i := 1; i < n && start < len(src); i++ {
		j := bytes.IndexByte(src[start:], '\n')
		if j < 0 {
			break
		}
		start += j + 1
	}
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		end = len(src) - start
	}
	return document.Range{Start: start, End: start + end}
}
