package trust

import "github.com/icm-tool/icm/server/internal/workspace"

// Kinds lists every kind of part, in the parts' order.
func Kinds() []Kind {
	out := make([]Kind, len(kindInfo))
	for i, k := range kindInfo {
		out[i] = k.kind
	}
	return out
}

// Shell pins a shell command line run in dir, as a Script stage's.
func Shell(ws *workspace.Workspace, dir, line string) []Pin { return newPinner(ws).shell(dir, line) }

// Argv pins a tool server's command started in dir.
func Argv(ws *workspace.Workspace, dir string, argv []string) []Pin {
	return newPinner(ws).argv(dir, argv, true)
}
