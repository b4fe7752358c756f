package check

import "github.com/icm-tool/icm/server/internal/markdown"

// Items returns the For each items of a source file: its ## sections.
func Items(src []byte) []markdown.Item { return markdown.Parse(src).Items() }
