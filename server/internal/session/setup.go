package session

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/setup"
)

// questionnaires are where a workspace keeps its setup questions.
var questionnaires = []string{"setup/questionnaire.md", "_config/questionnaire.md"}

// Plan is what icm setup asks of the workspace: its questionnaire's
// questions that fill a setup-time variable, then every variable the
// check finds unset that no question fills. With all false, what [vars]
// sets already is not asked again.
func (su Setup) Plan(all bool) (*setup.Plan, error) {
	s := su.s
	var q *setup.Questionnaire
	file := ""
	for _, name := range questionnaires {
		data, err := s.ws.Files.ReadFile(s.ws.Abs(name))
		if err == nil {
			q, file = setup.Parse(string(data)), name
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fault.From(fmt.Errorf("unable to read %s: %w", name, err))
		}
	}
	rep := s.Check(nil)
	var unset []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" && !containsString(unset, v) {
			unset = append(unset, v)
		}
	}
	// What the check notes unset: the variables paths need, and those the
	// questionnaire asks for that the texts hold.
	for _, f := range rep.Findings {
		if f.Code == contract.CodeSetupVar {
			for _, v := range strings.Split(f.Data["vars"], ",") {
				add(v)
			}
		}
	}
	if q == nil {
		// No questionnaire: every variable the assembled texts hold
		// unset is asked, one by one.
		for _, sr := range rep.Stages {
			if sr.Context != nil {
				for _, v := range sr.Context.UnsetVars {
					add(v)
				}
			}
		}
	}
	return setup.NewPlan(q, file, unset, s.ws.Vars, all), nil
}

// varName is a setup-time variable's name, as the placeholders write it.
var varName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// SaveVars writes answers into [vars] of the workspace's config.toml (made
// when there is none), keeping the rest of the file as it is, and returns
// the file written. The new text must read as the settings it was, with
// the answers; otherwise nothing is written.
func (su Setup) SaveVars(vars map[string]string) (string, error) {
	s := su.s
	for name := range vars {
		if !varName.MatchString(name) {
			return "", fault.InvalidRequest(fmt.Sprintf("%q is not a setup-time variable's name", name), "a name is capitals, digits and _, as in {{PROJECT_SLUG}}")
		}
	}
	path := s.ws.Config.Path
	if path == "" {
		path = filepath.Join(s.ws.Root, config.FileName)
	}
	old, err := s.ws.Disk.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fault.From(fmt.Errorf("unable to read %s: %w", s.ws.Rel(path), err))
	}
	text, err := setup.SetVars(string(old), vars)
	if err != nil {
		return "", fault.ConfigInvalid(fmt.Sprintf("unable to write the answers into %s: %v", s.ws.Rel(path), err), "write [vars] as a table of `NAME = \"value\"` lines", path)
	}
	cfg, err := config.Parse(path, []byte(text))
	if err != nil {
		return "", fault.ConfigInvalid(fmt.Sprintf("unable to write the answers into %s: %v", s.ws.Rel(path), err),
			"fix config.toml so that it reads, then run setup again", path)
	}
	got := cfg.VarValues()
	for k, v := range vars {
		if got[k] != v {
			return "", fault.ConfigInvalid(fmt.Sprintf("unable to write [vars] %s into %s: its [vars] table is not a plain table of values", k, s.ws.Rel(path)),
				"write [vars] as `NAME = \"value\"` lines", path)
		}
	}
	if err := s.ws.Disk.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", fault.From(err)
	}
	return path, nil
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
