package promptcount

import "time"

// SetMemoClock replaces a memo's clock, for tests.
func SetMemoClock(m *Memo, now func() time.Time) { m.now = now }
