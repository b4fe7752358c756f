package contract

import (
	"path"
	"strings"
)

// A command shown in a contract makes a file only where it writes it: a
// copy's or a move's last argument, a redirect's target, any argument of
// a program that is not one that only reads (cat, grep, ...). Copying an
// output into an archive, or counting its lines, reads it: the stage
// that shows such a command is still a model's.

// copiers write their last argument and read the others.
var copiers = map[string]bool{"cp": true, "mv": true, "rsync": true, "scp": true, "ln": true, "install": true}

// readers only read the files they are given.
var readers = map[string]bool{"cat": true, "less": true, "more": true, "head": true, "tail": true, "grep": true, "rg": true,
	"wc": true, "diff": true, "open": true, "xdg-open": true, "code": true, "vi": true, "vim": true, "nano": true, "bat": true,
	"jq": true, "yq": true, "ls": true, "stat": true, "file": true, "git": true, "echo": true}

// commandMakes reports whether the commands of a block write a file
// named name.
func commandMakes(block, name string) bool {
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, cmd := range splitCommands(line) {
			if simpleMakes(strings.Fields(cmd), name) {
				return true
			}
		}
	}
	return false
}

// splitCommands cuts a line into its simple commands at pipes, && and ;.
func splitCommands(line string) []string {
	return strings.FieldsFunc(strings.NewReplacer("&&", ";", "||", ";", "|", ";").Replace(line), func(r rune) bool { return r == ';' })
}

// simpleMakes reports whether one simple command, as words, writes name.
func simpleMakes(words []string, name string) bool {
	prog := ""
	for i, w := range words {
		switch {
		case prog == "" && (strings.Contains(w, "=") || w == "sudo"):
			continue // an assignment or sudo before the program
		case prog == "":
			prog = path.Base(w)
			continue
		}
		redirect := strings.HasPrefix(w, ">") || (i > 0 && strings.HasSuffix(words[i-1], ">"))
		if strings.HasPrefix(w, "<") || (i > 0 && words[i-1] == "<") || !namesFile(w, name) {
			continue
		}
		switch {
		case redirect:
			return true
		case readers[prog]:
		case copiers[prog]:
			if i == len(words)-1 {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// namesFile reports whether a command's word names the file name (as
// the word, its last path element, or a flag's value: --out=x).
func namesFile(word, name string) bool {
	word = strings.TrimLeft(word, ">")
	if _, v, ok := strings.Cut(word, "="); ok && strings.HasPrefix(word, "-") {
		word = v
	}
	word = strings.Trim(word, `"'`)
	return word == name || path.Base(word) == name
}
