package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// expander replaces ${...} variables in configuration values. It knows the
// VS Code forms (${workspaceFolder}, ${env:NAME}, ...) and the shell-like
// forms .mcp.json files use (${NAME}, ${NAME:-default}).
type expander struct {
	workspace string
	home      string
	lookupEnv func(string) (string, bool)
}

// issue is one thing expansion could not do cleanly.
type issue struct {
	severity Severity
	message  string
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// expand returns s with every variable replaced. An unset environment
// variable becomes "" with a warning; ${input:...} and unknown variables are
// errors (the value would be wrong, so the server must not start).
func (e expander) expand(s string) (string, []issue) {
	var out strings.Builder
	var issues []issue
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			out.WriteString(s)
			return out.String(), issues
		}
		out.WriteString(s[:i])
		rest := s[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			issues = append(issues, issue{SeverityWarning, fmt.Sprintf("%q has an unclosed ${: kept as written", s)})
			out.WriteString(s[i:])
			return out.String(), issues
		}
		value, iss := e.variable(rest[:j])
		if iss != nil {
			issues = append(issues, *iss)
		}
		out.WriteString(value)
		s = rest[j+1:]
	}
}

// variable resolves the inside of one ${...}.
func (e expander) variable(name string) (string, *issue) {
	switch name {
	case "workspaceFolder":
		return e.workspace, nil
	case "workspaceFolderBasename":
		return filepath.Base(e.workspace), nil
	case "userHome":
		if e.home == "" {
			return "", &issue{SeverityWarning, "${userHome} is unknown here: replaced by an empty string"}
		}
		return e.home, nil
	case "pathSeparator", "/":
		return string(os.PathSeparator), nil
	}
	if id, ok := strings.CutPrefix(name, "input:"); ok {
		return "${" + name + "}", &issue{SeverityError, fmt.Sprintf(
			"${input:%s} asks VS Code to prompt for a value, which icm cannot do: put the value in an environment variable and write ${env:NAME}, or define the server in config.toml", id)}
	}
	if v, ok := strings.CutPrefix(name, "env:"); ok {
		return e.env(v, "${"+name+"}")
	}
	if v, def, ok := strings.Cut(name, ":-"); ok && envName.MatchString(v) {
		if got, set := e.lookupEnv(v); set && got != "" {
			return got, nil
		}
		return def, nil
	}
	if envName.MatchString(name) {
		return e.env(name, "${"+name+"}")
	}
	return "${" + name + "}", &issue{SeverityError, fmt.Sprintf(
		"${%s} is not a variable icm knows (use ${workspaceFolder}, ${userHome}, ${env:NAME} or ${NAME:-default})", name)}
}

func (e expander) env(name, written string) (string, *issue) {
	if !envName.MatchString(name) {
		return written, &issue{SeverityError, fmt.Sprintf("%s: %q is not an environment variable name", written, name)}
	}
	v, ok := e.lookupEnv(name)
	if !ok {
		return "", &issue{SeverityWarning, fmt.Sprintf("%s: environment variable %s is not set; using an empty string", written, name)}
	}
	return v, nil
}
