package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// pinner pins the programs and files the commands of one workspace name,
// reading each file once however many commands run it.
type pinner struct {
	ws *workspace.Workspace
	// generated are the folders icm's own runs write, relative to the
	// workspace, each with a trailing slash.
	generated []string
	files     map[string]Pin
	// names are the regular files (and links) of each folder a bare word
	// was looked up in: most words of a command name no file, and a
	// folder is listed once where each word would be opened.
	names map[string]map[string]bool
}

func newPinner(ws *workspace.Workspace) *pinner {
	p := &pinner{ws: ws, files: map[string]Pin{}, names: map[string]map[string]bool{}}
	for _, st := range ws.Stages {
		if st.Escape == nil {
			p.generated = append(p.generated, st.Rel+"/"+workspace.OutputDir+"/")
		}
	}
	p.generated = append(p.generated, path.Join(ws.StagesDir, workspace.ProposedDir)+"/", workspace.HistoryDir+"/")
	return p
}

// shells run the script that follows their -c option.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true}

// builtins are the shell's own commands: nothing on PATH, nothing to pin
// (a file one of them reads, as `. ./lib.sh` does, is an argument).
var builtins = map[string]bool{
	"echo": true, "printf": true, "exit": true, "return": true, "test": true, "[": true, "true": true, "false": true,
	"cd": true, "set": true, "unset": true, "export": true, "read": true, "shift": true, ":": true, ".": true,
	"source": true, "eval": true, "wait": true, "trap": true, "umask": true, "local": true, "pwd": true,
	"exec": true, "command": true, "builtin": true, "for": true, "case": true, "select": true, "function": true,
}

// selfWrites are the options of icm's own commands whose value is a file
// the command writes (icm critique --send-back, icm export -o, ...):
// what a later run reads there is generated content.
var selfWrites = map[string]bool{"--out": true, "-o": true, "--report": true, "--verdict": true, "--send-back": true}

// fetchers run code they fetch when they run: the command itself, or
// the command with the subcommand that does it ("pipx run").
var fetchers = map[string]string{
	"npx": "", "bunx": "", "pnpx": "", "uvx": "",
	"pipx": "run", "npm": "exec x", "pnpm": "dlx", "yarn": "dlx", "bun": "x", "uv": "tool",
}

// shell pins a shell command line run in dir (a Script stage, a `run:`
// check): the files its words name and how its programs are held.
func (p *pinner) shell(dir, line string) []Pin {
	return dedupe(p.words(dir, shellWords(line), false))
}

// argv pins a command started without a shell in dir (argv[0] is its
// program); self says a bare "icm" is icm itself (a tool server entry).
func (p *pinner) argv(dir string, argv []string, self bool) []Pin {
	words := make([]shellWord, 0, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, "${workspaceFolder}", p.ws.Root)
		words = append(words, shellWord{text: a, program: i == 0, dynamic: strings.Contains(a, "${")})
	}
	return dedupe(p.words(dir, words, self))
}

// words pins each command of words: its program, the script a shell's
// -c runs, and every argument that names a file.
func (p *pinner) words(dir string, words []shellWord, self bool) []Pin {
	var out []Pin
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.program {
			out = append(out, p.arg(dir, w)...)
			continue
		}
		end := i + 1
		for end < len(words) && !words[end].program {
			end++
		}
		args := words[i+1 : end]
		prog := p.program(dir, w, args, self)
		out = append(out, prog...)
		icm := len(prog) == 1 && prog[0].How == Self
		for j := 0; j < len(args); j++ {
			a := args[j]
			switch {
			case shells[path.Base(w.text)] && shellC(a) && j+1 < len(args) && !args[j+1].dynamic:
				out = append(out, p.shell(dir, args[j+1].text)...)
				j++
			case icm && selfWrites[a.text] && j+1 < len(args):
				out = append(out, p.written(dir, args[j+1])...)
				j++
			case icm && strings.HasPrefix(a.text, "-") && selfWrites[strings.SplitN(a.text, "=", 2)[0]]:
				out = append(out, p.written(dir, shellWord{text: strings.SplitN(a.text, "=", 2)[1], dynamic: a.dynamic})...)
			default:
				out = append(out, p.arg(dir, a)...)
			}
		}
		i = end - 1
	}
	return out
}

// shellC reports whether a shell's option word holds -c.
func shellC(w shellWord) bool {
	t := w.text
	return !w.dynamic && strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "c")
}

// program pins a command's name.
func (p *pinner) program(dir string, w shellWord, args []shellWord, self bool) []Pin {
	t := w.text
	switch {
	case w.dynamic && (t == "$ICM_BIN" || t == "${ICM_BIN}"):
		return []Pin{{How: Self, Word: t}}
	case w.dynamic:
		return []Pin{{How: Variable, Word: t}}
	case self && t == "icm":
		return []Pin{{How: Self, Word: t}}
	case strings.Contains(t, "/"):
		if pin, ok := p.file(dir, t); ok {
			return []Pin{pin}
		}
		return nil // nothing there: it cannot run (a file put there later is new)
	case fetches(t, args):
		return []Pin{{How: Fetches, Word: t}}
	case builtins[t]:
		return nil
	}
	return []Pin{{How: OnPath, Word: t}}
}

// fetches reports whether the command fetches what it runs.
func fetches(program string, args []shellWord) bool {
	sub, ok := fetchers[path.Base(program)]
	if !ok {
		return false
	}
	if sub == "" {
		return true
	}
	for _, a := range args {
		if strings.HasPrefix(a.text, "-") {
			continue
		}
		return strings.Contains(" "+sub+" ", " "+a.text+" ")
	}
	return false
}

// arg pins an argument that names a file of the workspace or its
// repository (a script given to an interpreter, a file read as input);
// other words pin nothing.
func (p *pinner) arg(dir string, w shellWord) []Pin {
	if w.output || w.dynamic || w.text == "" {
		return nil
	}
	cands := []string{w.text}
	if strings.HasPrefix(w.text, "-") {
		_, v, ok := strings.Cut(w.text, "=")
		if !ok {
			return nil
		}
		cands = []string{v}
	} else if assignment.MatchString(w.text) {
		_, v, _ := strings.Cut(w.text, "=")
		cands = []string{v}
	}
	var out []Pin
	for _, c := range cands {
		if pin, ok := p.file(dir, c); ok && pin.How != Outside {
			out = append(out, pin)
		}
	}
	return out
}

// written pins a file icm's own command writes: generated content when
// it is a file of the workspace, nothing otherwise.
func (p *pinner) written(dir string, w shellWord) []Pin {
	if w.dynamic || w.text == "" || w.text == "-" {
		return nil
	}
	abs := w.text
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, filepath.FromSlash(abs))
	}
	rel, err := filepath.Rel(p.ws.Root, filepath.Clean(abs))
	if err != nil || !filepath.IsLocal(rel) {
		return nil
	}
	return []Pin{{How: Generated, File: filepath.ToSlash(rel)}}
}

// file pins the file word names from dir: by its content, as generated
// content, as too large, or as outside (a path that leaves the
// workspace and its repository); false when there is no regular file.
func (p *pinner) file(dir, word string) (Pin, bool) {
	abs := word
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, filepath.FromSlash(word))
	}
	abs = filepath.Clean(abs)
	if rel, err := filepath.Rel(p.ws.Root, abs); err == nil && filepath.IsLocal(rel) && p.isGenerated(filepath.ToSlash(rel)) {
		return Pin{How: Generated, File: filepath.ToSlash(rel)}, true
	}
	if !strings.Contains(word, "/") && !p.listed(dir, word) {
		return Pin{}, false
	}
	pin, ok := p.files[abs]
	if !ok {
		pin = p.read(abs)
		p.files[abs] = pin
	}
	if pin.File == "" {
		pin.Word = word // a program held by its name
	}
	return pin, pin.How != ""
}

// listed reports whether dir holds an entry named name that may be a
// regular file.
func (p *pinner) listed(dir, name string) bool {
	names, ok := p.names[dir]
	if !ok {
		names = map[string]bool{}
		entries, _ := p.ws.InputRoot(dir).ReadDir(dir)
		for _, e := range entries {
			if t := e.Type(); t.IsRegular() || t&fs.ModeSymlink != 0 {
				names[e.Name()] = true
			}
		}
		p.names[dir] = names
	}
	return names[name]
}

// read hashes the file at abs through the contained file layer: the
// workspace's Root, or the repository's for a file outside the
// workspace. A path that leaves both is Outside; no regular file there,
// no pin (How "").
func (p *pinner) read(abs string) Pin {
	root := p.ws.InputRoot(abs)
	f, info, err := root.Open(abs)
	var esc *workspace.EscapeError
	switch {
	case errors.As(err, &esc):
		return Pin{How: Outside}
	case err != nil:
		return Pin{}
	}
	defer f.Close()
	name := p.ws.InputRel(abs)
	max := root.MaxRead()
	if info.Size() > max {
		return Pin{How: TooLarge, File: name}
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, max+1))
	switch {
	case err != nil:
		return Pin{}
	case n > max:
		return Pin{How: TooLarge, File: name}
	}
	return Pin{How: Content, File: name, SHA256: hex.EncodeToString(h.Sum(nil))}
}

// isGenerated reports whether rel lies where icm's own runs write: a
// stage's output folder, the proposals folder, the history, a state
// folder.
func (p *pinner) isGenerated(rel string) bool {
	for _, g := range p.generated {
		if strings.HasPrefix(rel, g) {
			return true
		}
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == state.StateDir {
			return true
		}
	}
	return false
}

// dedupe keeps each pin once, in order.
func dedupe(pins []Pin) []Pin {
	seen := map[Pin]bool{}
	out := pins[:0]
	for _, p := range pins {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
