package assemble

import (
	"crypto/sha256"
	"encoding/hex"
)

// ID names the context by what a run sends: the stage, the For each item
// and the system and user texts. The same files give the same id, and any
// change to what the model (or an agent) reads gives another, so a run
// made from a context read earlier can say which one it was and be
// refused when the files have moved on since.
func (c *Context) ID() string {
	h := sha256.New()
	for _, s := range []string{c.Stage, c.Item, c.System, c.User} {
		// Each part is length-prefixed so no two splits of the same
		// bytes hash alike.
		var n [8]byte
		l := uint64(len(s))
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return "ctx-" + hex.EncodeToString(h.Sum(nil)[:10])
}
