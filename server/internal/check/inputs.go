package check

// This file holds one stage's file inputs: where each leads, whether it is
// there, who writes it, what of it is loaded.

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// input checks one file input and returns false when its path escapes.
func (c *checker) input(st *workspace.Stage, k *contract.Contract, in contract.Input) bool {
	loc, err := assemble.LocateWith(c.ws, st, in, c.isProduced)
	if err != nil {
		c.add(contract.Finding{File: st.Contract, Range: in.PathRange, Severity: escapeSeverity(err), Code: contract.CodePathEscape,
			Message: escapeMessage(err)})
		return false
	}
	at := func(sev contract.Severity, code, msg string) *contract.Finding {
		f := contract.Finding{File: st.Contract, Range: in.PathRange, Severity: sev, Code: code, Message: msg}
		if in.Embedded && sev == contract.Error {
			// Which words of the cell are the path rests on reading them.
			f.Basis = contract.BasisReading
		}
		c.add(f)
		return &c.r.Findings[len(c.r.Findings)-1]
	}
	if len(loc.Unset) > 0 {
		c.unsetVars(st, in.PathRange, in.Written, loc.Unset)
		return true
	}
	if c.layered(st, loc) {
		return true // the identity or routing file or the contract, loaded as layer 0, 1 or 2 already
	}
	rel := loc.Rel
	if in.Templated && !(in.Glob && loc.Exists) {
		c.placeholder(st, in, loc, at)
		if !loc.Exists {
			return true
		}
	} else if !in.Templated {
		for _, cand := range loc.Tried {
			i, ok := c.producerIndex(cand)
			if _, inside := c.producer[cand]; ok && !inside && loc.Exists {
				// A file some stage edits in place, already there: reading
				// it is no matter of order.
				continue
			}
			if ok && c.order(st, in, cand, i, at) {
				return true
			}
		}
	}
	switch {
	case !loc.Exists && in.Glob:
		if loc.Own {
			at(contract.Info, contract.CodeInputSelf, fmt.Sprintf("%s is in this stage's own output folder; icm loads the files it matches from an earlier run when there are some", rel))
			return true
		}
		if producer := c.globProducer(st, loc.Rel); producer != "" {
			f := at(contract.Info, contract.CodeInputNotYet, fmt.Sprintf("no file matches %s yet; stage %s writes the files that fit it", rel, producer))
			f.Data = map[string]string{"producer": producer}
			return true
		}
		if in.Optional {
			at(contract.Info, contract.CodeInputOptional, fmt.Sprintf("no file matches %s; the contract marks it optional, so the stage runs without it", rel))
			return true
		}
		// A pattern names no file of its own: that none fits yet is no
		// certainty the stage has nothing to read.
		at(contract.Warning, contract.CodeInputMissing, fmt.Sprintf("no file matches %s yet; the stage runs without it", rel))
		return true
	case !loc.Exists:
		c.absent(st, in, loc, at)
		return true
	case loc.Dir && len(loc.Files) == 0:
		if producer := c.producerOf(st, rel); producer != "" {
			f := at(contract.Info, contract.CodeInputNotYet, fmt.Sprintf("%s/ is empty so far; stage %s writes into it", rel, producer))
			f.Data = map[string]string{"producer": producer}
		} else if !loc.Own {
			at(contract.Info, contract.CodeEmptyFolder, fmt.Sprintf("%s/ is an empty folder; nothing is loaded from it until files are added", rel))
		}
		c.laterInFolder(st, in, loc, at)
		return true
	case loc.Dir || in.Glob:
		// A folder or glob input loads the files it holds: each must be
		// one icm reads.
		for _, f := range loc.Files {
			if _, err := c.ws.ReadInput(f); err != nil {
				c.refused(st, in.PathRange, c.ws.InputRel(f), err)
			}
		}
		c.laterInFolder(st, in, loc, at)
		c.folderLoad(st, in, loc, at)
		return true
	}
	if loc.Shared {
		at(contract.Info, contract.CodeSharedInput,
			fmt.Sprintf("%s is read from %s, in the repository above the workspace: read-only", rel, loc.Abs))
	}
	c.file(st, in, loc.Files[0], at)
	return true
}

// layered reports whether an input names the identity or routing file,
// which every stage loads already (layer 0 and 1), or the stage's own
// contract (layer 2).
func (c *checker) layered(st *workspace.Stage, loc *assemble.Located) bool {
	if loc.Exists && loc.Abs == st.Contract {
		return true
	}
	if !loc.Exists || loc.Dir || filepath.Dir(loc.Abs) != c.ws.Root {
		return false
	}
	name := filepath.Base(loc.Abs)
	return name == workspace.RoutingFile || (c.ws.Identity != "" && name == c.ws.Identity)
}

// laterInFolder reports a folder input that holds a later stage's output
// folder (a "../../" that takes in the whole workspace): the stage would
// read what runs after it.
func (c *checker) laterInFolder(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	if !loc.Dir || loc.Shared {
		return
	}
	dir := loc.Rel
	for _, other := range c.r.Stages[st.Index+1:] {
		out := path.Join(other.Stage.Rel, workspace.OutputDir)
		if dir == "." || dir == out || strings.HasPrefix(out, dir+"/") {
			what := dir + "/"
			if dir == "." {
				what = "the workspace root"
			}
			// Certain, but the stage still runs: a warning.
			f := at(contract.Warning, contract.CodeInputLater,
				fmt.Sprintf("%s holds %s/, the output of stage %s, which runs after this one: the stage would read a later stage's work", what, out, other.Stage.Name))
			f.Data = map[string]string{"producer": other.Stage.Name}
			return
		}
	}
}

// folderLoad says when a folder or pattern input holds more than icm
// loads of it, and when its scope (which icm applies to single files) is
// not applied.
func (c *checker) folderLoad(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	var total int64
	n := 0
	for _, f := range loc.Files {
		if total >= assemble.MaxFolderBytes {
			break
		}
		if info, err := c.ws.StatInput(f); err == nil {
			total += info.Size()
		}
		n++
	}
	kind := "the folder " + loc.Rel
	switch {
	case in.Glob || in.Templated:
		kind = "the pattern " + loc.Rel
	case loc.Rel == ".":
		kind = "the workspace root"
	}
	switch {
	case loc.More:
		at(contract.Info, contract.CodeFolderCapped, fmt.Sprintf("%s holds more than %d files; icm loads the first %d (in name order)", kind, workspace.MaxFolderFiles, n))
	case n < len(loc.Files):
		at(contract.Info, contract.CodeFolderCapped, fmt.Sprintf("%s holds %d files; icm loads the first %d (%s at most, in name order)", kind, len(loc.Files), n, byteText(assemble.MaxFolderBytes)))
	}
}

func byteText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// order reports an input another stage writes: an error when that stage
// runs later, a note when it is this stage's own output (the previous
// version, as templates express revision). It returns true when nothing
// more is to be said about the input.
func (c *checker) order(st *workspace.Stage, in contract.Input, rel string, i int, at func(contract.Severity, string, string) *contract.Finding) bool {
	switch {
	case i == st.Index:
		if _, own := c.producer[rel]; !own {
			return true // a file the stage edits in place, outside output/
		}
		at(contract.Info, contract.CodeInputSelf,
			fmt.Sprintf("%s is this stage's own output; icm loads it as the previous version when there is one", rel))
		return true
	case i > st.Index:
		f := at(contract.Error, contract.CodeInputLater,
			fmt.Sprintf("%s is written by stage %s, which runs after this one; reorder the stages or read an earlier output", rel, c.r.Stages[i].Stage.Name))
		f.Data = map[string]string{"producer": c.r.Stages[i].Stage.Name}
		return true
	}
	return false
}

// placeholder says what a path holding a placeholder leads to: the one
// file that fits it (which is loaded), several (none is), or none yet.
func (c *checker) placeholder(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	switch n := len(loc.Matches); {
	case n == 1:
		at(contract.Info, contract.CodePlaceholderPath,
			fmt.Sprintf("%s holds a placeholder; icm loads %s, the one file that fits it", in.Path, loc.Matches[0]))
	case n > 1:
		at(contract.Info, contract.CodePlaceholderPath,
			fmt.Sprintf("%s holds a placeholder that %d files fit (%s); icm loads none of them: name the one to use", in.Path, n, strings.Join(loc.Matches, ", ")))
	default:
		if producer := c.patternProducer(st, loc.Rel); producer != "" {
			at(contract.Info, contract.CodePlaceholderPath,
				fmt.Sprintf("%s holds a placeholder; stage %s writes the file that fits it, and icm loads it once it exists", in.Path, producer))
			return
		}
		if own := assemble.PatternProducer(c.r.ProducedBy, loc.Rel); own == st.Name {
			at(contract.Info, contract.CodePlaceholderPath,
				fmt.Sprintf("%s holds a placeholder; this stage writes the file that fits it, and icm loads the previous one when there is one", in.Path))
			return
		}
		if in.Optional || loc.Own {
			at(contract.Info, contract.CodePlaceholderPath, fmt.Sprintf("%s holds a placeholder and no file fits it yet; icm loads it once one does", in.Path))
			return
		}
		if spans := c.spanning(st, in); len(spans) > 0 {
			// Not certain the stage has nothing to read: a placeholder may
			// stand for several folders.
			at(contract.Info, contract.CodePlaceholderPath,
				fmt.Sprintf("%s holds a placeholder that fits no file as one folder, but fits %s when it stands for several; icm loads the file the run names", in.Path, countedList(spans, 3)))
			return
		}
		f := at(contract.Warning, contract.CodeInputMissing,
			fmt.Sprintf("no file fits %s yet (its placeholder is filled at run time) and no earlier stage writes one; the stage runs without it", loc.Rel))
		f.Data = map[string]string{"path": loc.Rel}
	}
}

// spanning lists the files that fit a path holding placeholders when each
// placeholder that is a whole folder stands for one folder or more.
func (c *checker) spanning(st *workspace.Stage, in contract.Input) []string {
	pattern := assemble.SpanningPattern(in.Path)
	if pattern == "" || in.Glob {
		return nil
	}
	matches, _, _, err := assemble.Glob(c.ws, st.Dir, pattern)
	if err != nil {
		return nil
	}
	rels := make([]string, len(matches))
	for i, m := range matches {
		rels[i] = c.ws.InputRel(m)
	}
	return rels
}

// countedList names up to n items and says how many more there are.
func countedList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// absent reports an input that does not exist: the stage's own previous
// output and optional inputs are notes, an earlier stage's output is a
// note that names it, anything else is an error.
func (c *checker) absent(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	rel := loc.Rel
	if loc.Own {
		at(contract.Info, contract.CodeInputSelf,
			fmt.Sprintf("%s is in this stage's own output folder; icm loads it as the previous version when there is one", rel))
		return
	}
	if producer := c.producerOf(st, rel); producer != "" {
		f := at(contract.Info, contract.CodeInputNotYet, fmt.Sprintf("%s does not exist yet; stage %s produces it", rel, producer))
		f.Data = map[string]string{"producer": producer}
		return
	}
	if in.Optional {
		at(contract.Info, contract.CodeInputOptional,
			fmt.Sprintf("%s does not exist; the contract marks it optional, so the stage runs without it", rel))
		return
	}
	if loc.Shared {
		where := fmt.Sprintf("up to %s, the repository root", c.ws.Repository)
		if c.ws.RepositoryFrom == workspace.RepositoryNamed {
			where = fmt.Sprintf("up to %s, the repository root named with --repo or ICM_REPO", c.ws.Repository)
		}
		f := at(contract.Error, contract.CodeInputMissing,
			fmt.Sprintf("input %s does not exist in the workspace nor in the folders above it %s", rel, where))
		f.Data = map[string]string{"path": rel}
		return
	}
	if c.ws.SharedFromItself(in.Path) {
		// Not an error: the file may be in the repository above, which
		// icm does not read until the person names it. A run says the same.
		f := at(contract.Info, contract.CodeInputMissing, fmt.Sprintf("input %s is not in the workspace; %s", rel, workspace.OutsideGitShared))
		f.Data = map[string]string{"path": rel}
		return
	}
	msg := fmt.Sprintf("input %s does not exist and no earlier stage produces it", rel)
	if len(loc.Tried) > 1 {
		msg = fmt.Sprintf("input %s does not exist (looked for as %s) and no earlier stage produces it", in.Path, strings.Join(loc.Tried, ", "))
	}
	sev := contract.Error
	switch {
	case in.Embedded:
		// A note (settle): that the path is an input is icm's reading.
		msg += "; icm took it for an input from the words around it, so the stage runs without it"
	case !in.Plain():
		// A folder, a web address: no one file the stage is certain to
		// need.
		sev = contract.Warning
		msg += "; the stage runs without it"
	}
	f := at(sev, contract.CodeInputMissing, msg)
	f.Data = map[string]string{"path": rel}
	if strings.HasSuffix(in.Path, "/") {
		return // no file stands in for a folder
	}
	if s := c.suggest(rel); s != "" && !containsString(loc.Tried, s) {
		f.Message += fmt.Sprintf("; did you mean %s?", s)
		f.Data["suggest"] = s
		f.Data["suggest_relative"] = relTo(st.Rel, s)
	}
}

// file checks one existing file input: binary files, long references and
// scopes that name headings the file lacks.
func (c *checker) file(st *workspace.Stage, in contract.Input, abs string, at func(contract.Severity, string, string) *contract.Finding) {
	rel := c.ws.InputRel(abs)
	src, err := c.ws.ReadInput(abs)
	if err != nil {
		c.refused(st, in.PathRange, rel, err)
		return
	}
	if document.IsBinary(src) {
		at(contract.Info, contract.CodeBinaryInput,
			fmt.Sprintf("%s is a binary file (%d bytes); the model is given its path and size, never its bytes", rel, len(src)))
		return
	}
	if len(bytes.TrimSpace(src)) == 0 {
		at(contract.Warning, contract.CodeEmptyInput, fmt.Sprintf("%s is empty: the stage gets nothing from it", rel))
		return
	}
	if in.Layer == contract.LayerReference && textInput(abs) {
		c.referenceLength(in, rel, textnorm.Text(src), c.ws.Shared(abs), at)
	}
	sc := in.Scope
	switch {
	case sc == nil || sc.PathOnly:
	case sc.Table:
		c.add(contract.Finding{File: st.Contract, Range: sc.Range, Severity: contract.Info, Code: contract.CodeFreeScope,
			Message: fmt.Sprintf("scope %q names part of a table, not a heading: icm loads the whole of %s", sc.Raw, rel)})
	case sc.FreeText:
		if c.docs.Effective(abs, src, sc) == nil {
			c.add(contract.Finding{File: st.Contract, Range: sc.Range, Severity: contract.Info, Code: contract.CodeFreeScope,
				Message: fmt.Sprintf("scope %q names no heading of %s: icm loads the whole file", sc.Raw, rel)})
		}
	default:
		if _, err := c.docs.Select(abs, src, sc); err != nil {
			r := sc.Range
			if r.Len() == 0 {
				r = in.PathRange
			}
			// Certain, but the stage still runs: it gets the whole file.
			c.add(contract.Finding{File: st.Contract, Range: r, Severity: contract.Warning, Code: contract.CodeScopeNotFound,
				Message: fmt.Sprintf("%s: %v, so the stage gets the whole file", rel, err)})
		}
	}
}

// vendored reports whether a workspace file is part of a bundled skill
// (a skills/ folder), copied in as it came.
func vendored(rel string) bool {
	return strings.HasPrefix(rel, "skills/") || strings.Contains(rel, "/skills/")
}

// textInput reports whether an input is prose the method's reference line
// budget applies to (Markdown or plain text), not code or data.
func textInput(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown", ".txt", "":
		return true
	}
	return false
}

// referenceLength holds a reference to the method's line budget, counting
// what the stage loads (the sections its scope names, or the whole file).
// A file shared from the repository above the workspace is not the
// workspace's to split: its length is a note.
func (c *checker) referenceLength(in contract.Input, rel string, src []byte, shared bool, at func(contract.Severity, string, string) *contract.Finding) {
	if lineCount(src) <= contract.MaxReferenceLines {
		return // what a scope selects is never longer than the file
	}
	loaded := string(src)
	if sc := assemble.Effective(src, in.Scope); sc != nil {
		if sel, err := assemble.Select(src, sc); err == nil {
			loaded = sel
		}
	}
	n := lineCount([]byte(loaded))
	if n <= contract.MaxReferenceLines {
		return
	}
	if shared {
		at(contract.Info, contract.CodeReferenceTooLong,
			fmt.Sprintf("shared reference %s loads %d lines; the method keeps references under %d lines: section-scope the input to load less", rel, n, contract.MaxReferenceLines))
		return
	}
	if vendored(rel) {
		// A skill bundled as it came (the template's Pattern 9) is not the
		// workspace's to split: its length is a note.
		at(contract.Info, contract.CodeReferenceTooLong,
			fmt.Sprintf("bundled skill file %s loads %d lines; the method keeps references under %d lines: section-scope the input to load less", rel, n, contract.MaxReferenceLines))
		return
	}
	what := "has"
	if loaded != string(src) {
		what = "loads"
	}
	at(contract.Warning, contract.CodeReferenceTooLong,
		fmt.Sprintf("reference %s %s %d lines; the method keeps reference files under %d lines: split it or section-scope the input", rel, what, n, contract.MaxReferenceLines))
}

// refused reports an input icm will not read: a link out of the
// workspace, a named pipe or device, a file over the read cap. Other read
// errors are the machine's, not the contract's, and are left to the run.
func (c *checker) refused(st *workspace.Stage, at document.Range, rel string, err error) {
	if !workspace.Refused(err) {
		return
	}
	code := contract.CodeFileRefused
	var esc *workspace.EscapeError
	if errors.As(err, &esc) {
		code = contract.CodePathEscape
	}
	msg := fmt.Sprintf("input %s cannot be read: %v", rel, err)
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		msg += ": " + h.Hint()
	}
	c.add(contract.Finding{File: st.Contract, Range: at, Severity: escapeSeverity(err), Code: code,
		Message: msg, Data: map[string]string{"path": rel}})
}
