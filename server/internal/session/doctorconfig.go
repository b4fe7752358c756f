package session

import (
	"fmt"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
)

// configPath is the workspace's config.toml, there or not.
func (dr Doctor) configPath() string { return filepath.Join(dr.s.ws.Root, config.FileName) }

// configLine says whether config.toml reads: its first problem, at its
// line and column, is the config's own line, not one of the contracts'.
// findings are the check's; those about config.toml are the config's.
func (dr Doctor) configLine(findings []contract.Finding) DiagLine {
	s := dr.s
	l := DiagLine{ID: "config", Title: "config"}
	path := dr.configPath()
	if err := s.ws.ConfigErr; err != nil {
		file, line := config.Where(err)
		if file == "" {
			file = path
		}
		l.Status, l.Text = DiagFail, dr.relLoc(err.Error())
		l.Fix = &DiagFix{Setting: fmt.Sprintf("%s:%d", dr.relLoc(file), max(line, 1)), Action: fault.Action{ID: fault.OpenFile, File: file, Line: max(line, 1)}}
		return l
	}
	warns := 0
	var first *contract.Finding
	for i, f := range findings {
		if f.File == path && f.Severity <= contract.Warning {
			warns++
			if first == nil {
				first = &findings[i]
			}
		}
	}
	switch {
	case s.ws.Config.Path == "":
		l.Status, l.Text = DiagOK, "no config.toml: icm's defaults"
	case warns > 0:
		l.Status, l.Text = DiagWarn, fmt.Sprintf("config.toml is read; %d warning%s: %s", warns, plural(warns), first.Message)
		l.Fix = &DiagFix{Command: "icm check", Action: fault.Action{ID: fault.RunCheck, File: path}}
	default:
		l.Status, l.Text = DiagOK, "config.toml is read"
	}
	return l
}

// withoutFile is findings without those about file.
func withoutFile(findings []contract.Finding, file string) []contract.Finding {
	out := make([]contract.Finding, 0, len(findings))
	for _, f := range findings {
		if f.File != file {
			out = append(out, f)
		}
	}
	return out
}
