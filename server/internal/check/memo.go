package check

import (
	"io/fs"
	"sync"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// memoFiles remembers what one check has read, so a file that several
// stages list (CLAUDE.md, a shared reference) is read once per check. It
// lives only as long as one Run.
type memoFiles struct {
	base  workspace.Files
	mu    sync.Mutex
	reads map[string]memoRead
	stats map[string]memoStat
}

type memoRead struct {
	data []byte
	err  error
}

type memoStat struct {
	info fs.FileInfo
	err  error
}

func newMemo(base workspace.Files) *memoFiles {
	return &memoFiles{base: base, reads: map[string]memoRead{}, stats: map[string]memoStat{}}
}

func (m *memoFiles) ReadFile(p string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.reads[p]; ok {
		return r.data, r.err
	}
	data, err := m.base.ReadFile(p)
	m.reads[p] = memoRead{data, err}
	return data, err
}

func (m *memoFiles) Stat(p string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.stats[p]; ok {
		return s.info, s.err
	}
	info, err := m.base.Stat(p)
	m.stats[p] = memoStat{info, err}
	return info, err
}
