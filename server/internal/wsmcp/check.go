package wsmcp

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/session"
)

// checkText lists the check's findings as `icm check` prints them, paths
// relative to the workspace; stage, when set, keeps that stage's only.
func checkText(sess *session.Session, stage string) (string, error) {
	ws := sess.Workspace()
	rep := sess.Check(nil)
	dir := ""
	if stage != "" {
		st, err := ws.Stage(stage)
		if err != nil {
			return "", err
		}
		dir = st.Dir
	}
	mappers := map[string]*document.Mapper{}
	counts := map[contract.Severity]int{}
	var b strings.Builder
	for _, f := range rep.Findings {
		if dir != "" && !strings.HasPrefix(f.File, dir+"/") {
			continue
		}
		counts[f.Severity]++
		m, ok := mappers[f.File]
		if !ok {
			if src, err := ws.Files.ReadFile(f.File); err == nil {
				m = document.NewMapper(src)
			}
			mappers[f.File] = m
		}
		line, col := 1, 1
		if m != nil {
			if l, c, err := m.LineCol(f.Range.Start); err == nil {
				line, col = l, c
			}
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s [%s]\n", ws.Rel(f.File), line, col, f.Severity.Word(), f.Message, f.Code)
	}
	fmt.Fprintf(&b, "%s, %s, %s\n", count(counts[contract.Error], "error"), count(counts[contract.Warning], "warning"), count(counts[contract.Info], "note"))
	return b.String(), nil
}

// count is "1 error", "2 errors", as icm check says it.
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
