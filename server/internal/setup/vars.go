package setup

import (
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
)

// SetVars writes vars into the [vars] table of a config.toml's text: a key
// already there gets its new value where it is written, a new one is
// added at the end of the table, and a file without the table gets one at
// its end. Everything else in the file stays as it was, comments included.
// The config package places each key (config.SetValue); a [vars] it
// cannot edit line by line (an inline table, say) is an error that names
// the line, and nothing is written.
func SetVars(src string, vars map[string]string) (string, error) {
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	data := []byte(src)
	if len(names) > 0 && !hasVars(data) {
		if _, set := config.ValueOf(data, "", "vars"); !set {
			// A new table, with a line that says what it is for.
			if rest := strings.TrimRight(src, " \t\r\n"); rest != "" {
				data = []byte(rest + "\n\n")
			}
			data = append(data, "# Setup-time variables: the answers of icm setup.\n[vars]\n"...)
		}
	}
	for _, n := range names {
		e, err := config.SetValue(data, "vars", n, vars[n])
		if err != nil {
			return src, err
		}
		data = e.Apply(data)
	}
	return string(data), nil
}

// hasVars reports whether the text has a [vars] header.
func hasVars(data []byte) bool {
	for _, e := range config.Entries(data) {
		if e.Header && e.Table == "vars" {
			return true
		}
	}
	return false
}
