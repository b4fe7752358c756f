package check

import (
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/textnorm"
)

// Items returns the For each items of a source file: its ## sections.
func Items(src []byte) []markdown.Item { return markdown.Parse(textnorm.Text(src)).Items() }
