// Package workspaces holds the sample workspaces icm ships, for the
// programs that need one without a clone of the repository (icm demo).
package workspaces

import (
	"embed"
	"io/fs"
)

// The files of course-research as the repository tracks them. Named one
// by one: embedding the folder would leave out _config (a leading "_" is
// skipped) and take in run state a checkout may hold.
//
//go:embed course-research/CLAUDE.md course-research/CONTEXT.md course-research/config.toml course-research/_config course-research/pipeline
var courseResearch embed.FS

// CourseResearch is the sample workspace course-research, rooted at the
// workspace folder. Outputs a local run left in its pipeline/*/output/
// folders are in it too when the binary was built from such a checkout:
// copy it with the outputs left out (as icm demo does).
func CourseResearch() fs.FS {
	sub, err := fs.Sub(courseResearch, "course-research")
	if err != nil {
		panic(err) // the embed pattern above names the folder
	}
	return sub
}
