package document

import (
	"bytes"
	"unicode/utf8"
)

// IsBinary treats data with a NUL byte, or that is not UTF-8, in its first
// 8 KiB as binary: text a model could read never looks like that.
func IsBinary(data []byte) bool {
	head := data[:min(len(data), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n == 1 && len(head) > 3 {
			return true
		}
		head = head[n:]
	}
	return false
}
