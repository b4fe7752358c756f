//go:build !unix

package workspace

// openNonblock is zero where the system has no such flag; the file type
// is still checked once the file is open.
const openNonblock = 0

// folderBudget is how many folder handles a pass may hold.
func folderBudget() int { return maxFolderHandles }

func isLoop(error) bool   { return false }
func isNotDir(error) bool { return false }
