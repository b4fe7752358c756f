package check

// This file holds setup-time variables a path or a text needs and [vars]
// does not set.

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// unsetVars notes, once per variable in the workspace, a setup-time
// variable a path needs and [vars] does not set.
func (c *checker) unsetVars(st *workspace.Stage, r document.Range, written string, names []string) {
	var fresh []string
	for _, n := range names {
		if !c.varsNoted[n] {
			c.varsNoted[n] = true
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return
	}
	msg := fmt.Sprintf("%s is a setup-time variable with no value, so icm cannot look for this path yet: set it in [vars] of config.toml", varList(fresh))
	if len(fresh) > 1 {
		msg = fmt.Sprintf("%s are setup-time variables with no value, so icm cannot look for this path yet: set them in [vars] of config.toml", varList(fresh))
	}
	if q := c.questionnaire(); q != "" {
		msg += " (" + q + " asks for " + pronoun(len(fresh)) + ")"
	}
	c.add(contract.Finding{File: st.Contract, Range: r, Severity: contract.Info, Code: contract.CodeSetupVar, Message: msg,
		Data: map[string]string{"vars": strings.Join(fresh, ",")}})
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// questionnaire names the workspace's setup questionnaire, when it has one.
func (c *checker) questionnaire() string {
	for _, name := range []string{"setup/questionnaire.md", "_config/questionnaire.md"} {
		if _, err := c.ws.Files.Stat(c.ws.Abs(name)); err == nil {
			return name
		}
	}
	return ""
}

// textVars notes once the setup-time variables that the assembled texts
// hold as written and no path note named: those a setup questionnaire
// asks for (a text may show `{{PLACEHOLDER}}` as an example).
func (c *checker) textVars() {
	q := c.questionnaire()
	if q == "" {
		return
	}
	data, err := c.ws.Files.ReadFile(c.ws.Abs(q))
	if err != nil {
		return
	}
	asked := contract.SetupVarNames(string(data))
	var left []string
	for _, sr := range c.r.Stages {
		if sr.Context == nil {
			continue
		}
		for _, n := range sr.Context.UnsetVars {
			if !c.varsNoted[n] && containsString(asked, n) && !containsString(left, n) {
				left = append(left, n)
			}
		}
	}
	if len(left) == 0 {
		return
	}
	for _, n := range left {
		c.varsNoted[n] = true
	}
	shown := left
	if len(shown) > 6 {
		shown = shown[:6]
	}
	msg := fmt.Sprintf("%d setup-time variables the stages' texts hold have no value (%s", len(left), varList(shown))
	if len(left) > len(shown) {
		msg += ", …"
	}
	msg += "), so the model reads them as written: set them in [vars] of config.toml (" + q + " asks for them)"
	if len(left) == 1 {
		msg = fmt.Sprintf("the setup-time variable %s the stages' texts hold has no value, so the model reads it as written: set it in [vars] of config.toml (%s asks for it)", varList(left), q)
	}
	c.add(contract.Finding{File: c.ws.Abs(q), Severity: contract.Info, Code: contract.CodeSetupVar, Message: msg,
		Data: map[string]string{"vars": strings.Join(left, ",")}})
}

// varList writes variable names as placeholders.
func varList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "{{" + n + "}}"
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
