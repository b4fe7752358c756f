package critic

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// SendBackResult says whether a failing article went back to be rewritten.
type SendBackResult struct {
	// File is the feedback file of the earlier stage.
	File string `json:"file"`
	Sent bool   `json:"sent"`
	// Round counts the send-backs so far, this one included; Max bounds them.
	Round   int    `json:"round"`
	Max     int    `json:"max"`
	Message string `json:"message"`
}

var roundMarker = regexp.MustCompile(`<!-- icm critique: send-back (\d+) of (\d+) -->`)

// SendBack writes the verdict's revisions into file, a working input of
// the stage that wrote the article, which makes that stage stale so the
// next icm run rewrites the article with the feedback; the critique then
// runs again on the new article. It does so at most max times, counted in
// the file itself, and never when the article passed (rewriting the file
// then would send a good article back).
func SendBack(file string, v *Verdict, max int) (*SendBackResult, error) {
	res := &SendBackResult{File: file, Max: max}
	prev := 0
	if data, err := workspace.ReadFileAt(file, 0); err == nil {
		if m := roundMarker.FindSubmatch(data); m != nil {
			prev, _ = strconv.Atoi(string(m[1]))
		}
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("unable to read the feedback file %s: %w", file, err)
	}
	res.Round = prev
	switch {
	case v.Pass:
		res.Message = "The article passed; nothing was sent back."
		return res, nil
	case prev >= max:
		res.Message = fmt.Sprintf("The article was already sent back %d time(s), the most the contract allows; it stays failing until a person revises it or approves it with --force.", prev)
		return res, nil
	}
	res.Round, res.Sent = prev+1, true
	var b strings.Builder
	fmt.Fprintf(&b, "# Feedback from the critique\n\n<!-- icm critique: send-back %d of %d -->\n", res.Round, max)
	fmt.Fprintf(&b, "The previous draft did not pass the critique (overall %.1f of 100; %s). Rewrite it so that it does.\n\n## Required revisions\n\n", v.Overall, strings.Join(v.Failed, "; "))
	list(&b, v.RequiredRevisions)
	b.WriteString("\n## Specific critiques\n\n")
	list(&b, v.SpecificCritiques)
	if err := workspace.WriteFileAt(file, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	res.Message = fmt.Sprintf("The article was sent back (%d of %d): the revisions are in %s, so the stage that wrote it is stale and runs again with them; this critique then runs again.", res.Round, max, file)
	return res, nil
}
