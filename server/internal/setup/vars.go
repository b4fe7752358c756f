package setup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// tableHeader matches a TOML table header line.
var tableHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)

// keyLine matches `KEY = value` and captures the key.
var keyLine = regexp.MustCompile(`^\s*("?)([A-Za-z0-9_-]+)("?)\s*=`)

// SetVars writes vars into the [vars] table of a config.toml's text: a key
// already there gets its new value on its own line, a new one is added
// at the end of the table, and a file without the table gets one at its
// end. Everything else in the file stays as it was, comments included.
func SetVars(src string, vars map[string]string) string {
	if len(vars) == 0 {
		return src
	}
	lines := strings.Split(src, "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		m := tableHeader.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if start >= 0 {
			end = i
			break
		}
		if strings.TrimSpace(m[1]) == "vars" && !strings.HasPrefix(strings.TrimSpace(l), "[[") {
			start = i
		}
	}
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	if start < 0 {
		var b strings.Builder
		b.WriteString(strings.TrimRight(src, "\n"))
		if strings.TrimSpace(src) != "" {
			b.WriteString("\n\n")
		}
		b.WriteString("# Setup-time variables: the answers of icm setup.\n[vars]\n")
		for _, n := range names {
			fmt.Fprintf(&b, "%s = %s\n", n, Quote(vars[n]))
		}
		return b.String()
	}
	done := map[string]bool{}
	for i := start + 1; i < end; i++ {
		m := keyLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if v, ok := vars[m[2]]; ok {
			lines[i] = fmt.Sprintf("%s = %s", m[2], Quote(v))
			done[m[2]] = true
		}
	}
	var add []string
	for _, n := range names {
		if !done[n] {
			add = append(add, fmt.Sprintf("%s = %s", n, Quote(vars[n])))
		}
	}
	// New keys go after the table's last non-blank line.
	at := end
	for at > start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	out := append(append(append([]string{}, lines[:at]...), add...), lines[at:]...)
	return strings.Join(out, "\n")
}

// Quote writes s as a TOML basic string.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
