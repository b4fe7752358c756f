package contract

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// Manual says why a stage is a step of the person's, not a model's work,
// and what they are to do. A stage without a Script section whose
// outputs no model can write (a database, a PDF, a binary), whose own
// commands make its outputs, or which names no file and describes work
// in the world (a deploy, a live address, a sign-off) is shown to the
// person with its instructions, and waits for their approval: a model
// asked for it would invent the data.
type Manual struct {
	// Why says, in one line, what makes it a person's step.
	Why string
	// Steps are the contract's own words for what to do: its
	// instructions, then the sections that hold its commands.
	Steps string
}

// Manual reads the contract as a manual step; nil for a model's stage
// (and for a Script or For each stage, which icm runs).
func (c *Contract) Manual() *Manual {
	if c == nil || c.Script != nil || c.ForEach != nil {
		return nil
	}
	files, root := c.namedFiles()
	shell := c.shellBlocks()
	why := ""
	switch binary := nonText(files); {
	case root:
		why = "its output is the repository itself, which a person builds"
	case len(files) > 0 && len(binary) == len(files):
		why = fmt.Sprintf("its outputs are files a model cannot write (%s)", strings.Join(binary, ", "))
	case len(binary) > 0 && !c.textInOutput() && c.commandSteps():
		why = fmt.Sprintf("its steps are commands, and a model cannot write %s", strings.Join(binary, ", "))
	case len(files) > 0:
		if made := madeBy(files, shell); len(made) > 0 {
			why = fmt.Sprintf("the commands it shows make its outputs (%s)", strings.Join(made, ", "))
		}
	case len(shell) > 0:
		why = "it names no output file and its steps are commands"
	default:
		if w := c.worldly(); w != "" {
			why = "it names no output file and asks for work done in the world (" + w + ")"
		}
	}
	if why == "" {
		return nil
	}
	return &Manual{Why: why, Steps: c.manualSteps()}
}

// namedFiles are the files the contract names as outputs, in output/ and
// outside it, as written; root is set when an output is the workspace
// or repository folder itself ("../../").
func (c *Contract) namedFiles() (files []string, root bool) {
	for _, list := range [][]Output{c.Outputs, c.ExternalOutputs} {
		for _, o := range list {
			if o.NonFile || o.Path == "" {
				continue
			}
			p := path.Clean(o.Path)
			if p == "." || p == ".." || strings.Trim(strings.ReplaceAll(p, "..", ""), "/") == "" {
				root = true
				continue
			}
			if !o.Dir {
				files = append(files, p)
			}
		}
	}
	return files, root
}

// textInOutput reports whether the contract names a text file in its
// output/ folder: work of a model's beside whatever else it asks for.
func (c *Contract) textInOutput() bool {
	for _, o := range c.Outputs {
		if !o.NonFile && o.Path != "" && !o.Dir && !NonText(o.Path) {
			return true
		}
	}
	return false
}

// NonText reports whether a file's name says it cannot be text (a
// database, a PDF, an image, an archive, a binary): a model never writes
// one.
func NonText(p string) bool { return binaryExts[strings.ToLower(path.Ext(p))] }

// binaryExts are the kinds of files a model's text cannot be.
var binaryExts = map[string]bool{
	".db": true, ".sqlite": true, ".sqlite3": true, ".duckdb": true, ".parquet": true, ".pkl": true, ".pickle": true,
	".pdf": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".ico": true, ".bmp": true, ".tiff": true,
	".zip": true, ".tar": true, ".gz": true, ".tgz": true, ".7z": true, ".rar": true,
	".exe": true, ".dll": true, ".so": true, ".dylib": true, ".bin": true, ".wasm": true, ".class": true, ".jar": true, ".o": true,
	".docx": true, ".xlsx": true, ".pptx": true, ".odt": true, ".ods": true,
	".mp3": true, ".mp4": true, ".wav": true, ".mov": true, ".webm": true, ".ogg": true,
	".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".onnx": true, ".gguf": true, ".safetensors": true,
}

// nonText lists the base names of files that cannot be text.
func nonText(files []string) []string {
	var out []string
	for _, f := range files {
		if NonText(f) {
			out = append(out, path.Base(f))
		}
	}
	return out
}

// shellLangs are the info strings of code blocks that are commands.
var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true, "zsh": true, "fish": true,
	"powershell": true, "ps1": true, "pwsh": true, "cmd": true, "bat": true, "batch": true, "shell-session": true}

// shellBlock is a code block of commands and the section it is in.
type shellBlock struct{ section, text string }

// shellBlocks are the contract's code blocks of commands.
func (c *Contract) shellBlocks() []shellBlock {
	var out []shellBlock
	for _, s := range c.Sections {
		if s.Kind == KindScript {
			continue
		}
		for _, b := range markdown.Parse([]byte(s.Text)).Blocks() {
			if b.Kind != markdown.BlockCode {
				continue
			}
			lang, _, _ := strings.Cut(strings.ToLower(b.Code.Info), " ")
			if shellLangs[lang] || (lang == "" && strings.HasPrefix(strings.TrimSpace(b.Code.Text), "$ ")) {
				out = append(out, shellBlock{section: s.Name, text: b.Code.Text})
			}
		}
	}
	return out
}

// madeBy lists the outputs whose names the commands shown write.
func madeBy(files []string, shell []shellBlock) []string {
	var out []string
	for _, f := range files {
		name := path.Base(f)
		if placeholder.MatchString(name) {
			continue
		}
		for _, b := range shell {
			if commandMakes(b.text, name) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// commandSpan matches a command line in backticks: a script run by its
// path, or a program of the command line with its arguments.
var commandSpan = regexp.MustCompile("`(?:\\./|\\.\\\\|~/)[^`\\s]+[^`]*`|`(?:git|npm|npx|pnpm|yarn|pip3?|python3?|node|go|cargo|make|docker|kubectl|terraform|helm|bash|sh|pwsh|sqlite3|sqlite-utils|pdflatex|xelatex|latexmk|biber|vercel|netlify|gh|curl|wget|brew|apt(?:-get)?|uv|poetry|mvn|gradle|dotnet|rsync|scp|ssh)\\s[^`]+`")

// commandSteps reports whether the instructions give command lines to run.
func (c *Contract) commandSteps() bool {
	return commandSpan.MatchString(c.Instructions())
}

// worldWords are what a person's step names where a model's names a file:
// a deploy, an address that is live, a commit pushed, a sign-off.
var worldWords = regexp.MustCompile(`(?i)\b(deploy(?:ed|ment)?|live (?:url|site|app)|url|production|released?|published|pushed|merged|installed|sign(?:ed)?[- ]off|confirmation|approval|approves)\b`)

// worldly names the work in the world a contract without output files
// asks for, in its own words ("" when it asks for none).
func (c *Contract) worldly() string {
	for _, o := range c.OtherOutputs {
		if m := worldWords.FindString(o.What); m != "" {
			return strings.ToLower(m)
		}
	}
	return ""
}

// manualSteps are the contract's words for what the person does: its
// instructions, then each section of commands they do not include.
func (c *Contract) manualSteps() string {
	steps := c.Instructions()
	for _, b := range c.shellBlocks() {
		if !strings.Contains(steps, b.text) {
			steps += "\n\n## " + b.section + "\n\n```\n" + strings.TrimRight(b.text, "\n") + "\n```"
		}
	}
	return strings.TrimSpace(steps)
}
