package ollamamodel

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Bounds on a GGUF file's header, checked before the module's reader
// sees it: that reader allocates what the file's counts say (a string's
// length, an array's) before reading, so a damaged or hostile file could
// ask for any amount of memory. Real vocabularies are far inside them
// (Qwen3: 151,669 tokens and 151,387 merges, a header of a few MB; the
// largest known are under a million entries).
const (
	maxHeaderKVs     = 1 << 16
	maxHeaderTensors = 1 << 20
	maxHeaderString  = 16 << 20 // one value (a chat template, a token)
	maxHeaderArray   = 1 << 24  // entries of one array of numbers
	// maxStringArray bounds an array of strings (the tokens, the
	// merges): each entry costs far more once decoded than its bytes.
	maxStringArray = 1 << 21
	maxTensorDims  = 8
	// maxHeaderBytes bounds the whole header: metadata and tensor
	// descriptions, everything read to count (the tensors' data, which
	// follows, is never read).
	maxHeaderBytes = 512 << 20
	// A header over sparseSlack bytes must be stored on disk, at least
	// one part in sparseRatio of it (compressing filesystems store less
	// than they hold): a sparse file's holes read as zeros, empty
	// strings and zero counts of any size it claims.
	sparseSlack = 16 << 20
	sparseRatio = 8
	// An array of more than minEmpties strings may hold at most one
	// empty string in maxEmptyShare: a vocabulary has none or a few, and
	// holes read as empty strings.
	minEmpties    = 64
	maxEmptyShare = 4
)

// GGUF value types, as the format numbers them.
const (
	ggufUint8 = iota
	ggufInt8
	ggufUint16
	ggufInt16
	ggufUint32
	ggufInt32
	ggufFloat32
	ggufBool
	ggufString
	ggufArray
	ggufUint64
	ggufInt64
	ggufFloat64
)

// errHeader wraps what is wrong with a header.
var errHeader = errors.New("the GGUF header is not usable")

// checkHeader walks a GGUF file's header without keeping any of it and
// returns its length in bytes: every count is checked against the bounds
// above and against what the file holds, and values are skipped by
// reading through them, so the walk takes a few kilobytes of memory
// whatever the file says. It stops where the tensors' data begins.
func checkHeader(path string) (int64, error) {
	f, info, err := openRegular(path)
	if err != nil {
		return 0, fmt.Errorf("unable to open the model file: %w", err)
	}
	defer f.Close()
	n, err := walkHeader(f, info.Size())
	if err != nil {
		return n, fmt.Errorf("%w (%s, at byte %d): %v", errHeader, path, n, err)
	}
	// The header is read whole to count; one that the disk does not hold
	// is a sparse file's holes, which read as zeros (empty strings, zero
	// counts) whatever size they claim.
	if have, ok := stored(info); ok && n > sparseSlack && have < n/sparseRatio {
		return n, fmt.Errorf("%w (%s): its header is %d MB but the file stores %d KB: a sparse file, not a model", errHeader, path, n>>20, have>>10)
	}
	return n, nil
}

// walkHeader walks the header of a file of size bytes read from r and
// returns how far it read.
func walkHeader(r io.Reader, size int64) (int64, error) {
	h := &headerWalk{r: bufio.NewReaderSize(r, 64<<10), size: size}
	err := h.walk()
	return h.read, err
}

// headerWalk reads a header front to back, counting what it read.
type headerWalk struct {
	r     *bufio.Reader
	order binary.ByteOrder
	size  int64
	read  int64
	buf   [8]byte
}

func (h *headerWalk) walk() error {
	magic, err := h.bytes(4)
	if err != nil {
		return err
	}
	switch string(magic) {
	case "GGUF":
		h.order = binary.LittleEndian
	case "FUGG":
		h.order = binary.BigEndian
	default:
		return errors.New("not a GGUF file")
	}
	version, err := h.u32()
	if err != nil {
		return err
	}
	if version != 2 && version != 3 {
		return fmt.Errorf("GGUF version %d is not read (2 and 3 are)", version)
	}
	tensors, err := h.u64()
	if err != nil {
		return err
	}
	kvs, err := h.u64()
	if err != nil {
		return err
	}
	if kvs > maxHeaderKVs || tensors > maxHeaderTensors {
		return fmt.Errorf("%d metadata entries and %d tensors", kvs, tensors)
	}
	for range kvs {
		if _, err := h.skipString(); err != nil { // the key
			return err
		}
		t, err := h.u32()
		if err != nil {
			return err
		}
		if err := h.skipValue(t, true); err != nil {
			return err
		}
	}
	for range tensors {
		if _, err := h.skipString(); err != nil {
			return err
		}
		dims, err := h.u32()
		if err != nil {
			return err
		}
		if dims > maxTensorDims {
			return fmt.Errorf("a tensor with %d dimensions", dims)
		}
		// shape, then type and offset
		if err := h.skip(int64(dims)*8 + 4 + 8); err != nil {
			return err
		}
	}
	return nil
}

// scalarSize is the size of a fixed-size value type, 0 for others.
func scalarSize(t uint32) int64 {
	switch t {
	case ggufUint8, ggufInt8, ggufBool:
		return 1
	case ggufUint16, ggufInt16:
		return 2
	case ggufUint32, ggufInt32, ggufFloat32:
		return 4
	case ggufUint64, ggufInt64, ggufFloat64:
		return 8
	}
	return 0
}

func (h *headerWalk) skipValue(t uint32, arrayOK bool) error {
	if n := scalarSize(t); n > 0 {
		return h.skip(n)
	}
	switch t {
	case ggufString:
		_, err := h.skipString()
		return err
	case ggufArray:
		if !arrayOK {
			return errors.New("an array of arrays")
		}
		et, err := h.u32()
		if err != nil {
			return err
		}
		n, err := h.u64()
		if err != nil {
			return err
		}
		if n > maxHeaderArray {
			return fmt.Errorf("an array of %d entries", n)
		}
		if size := scalarSize(et); size > 0 {
			return h.skip(int64(n) * size)
		}
		if et != ggufString {
			return fmt.Errorf("an array of value type %d", et)
		}
		if n > maxStringArray {
			return fmt.Errorf("an array of %d strings, more than any vocabulary holds", n)
		}
		// Each string takes at least its 8-byte length.
		if int64(n)*8 > h.size-h.read {
			return fmt.Errorf("an array of %d strings in %d bytes", n, h.size-h.read)
		}
		var empty uint64
		for range n {
			size, err := h.skipString()
			if err != nil {
				return err
			}
			if size == 0 {
				empty++
			}
		}
		if empty > minEmpties && empty > n/maxEmptyShare {
			return fmt.Errorf("%d of an array's %d strings are empty: a damaged file, or one mostly holes", empty, n)
		}
		return nil
	}
	return fmt.Errorf("value type %d", t)
}

// skipString reads through a string and returns its length.
func (h *headerWalk) skipString() (uint64, error) {
	n, err := h.u64()
	if err != nil {
		return 0, err
	}
	if n > maxHeaderString {
		return n, fmt.Errorf("a string of %d bytes", n)
	}
	return n, h.skip(int64(n))
}

// skip reads through n bytes, which must be in the file and within the
// header's bound.
func (h *headerWalk) skip(n int64) error {
	if n < 0 || n > h.size-h.read || h.read+n > maxHeaderBytes {
		return fmt.Errorf("%d bytes more than the file or the header's bound holds", n)
	}
	got, err := io.CopyN(io.Discard, h.r, n)
	h.read += got
	return err
}

func (h *headerWalk) bytes(n int) ([]byte, error) {
	if err := h.need(int64(n)); err != nil {
		return nil, err
	}
	b := h.buf[:n]
	got, err := io.ReadFull(h.r, b)
	h.read += int64(got)
	return b, err
}

func (h *headerWalk) need(n int64) error {
	if n > h.size-h.read {
		return io.ErrUnexpectedEOF
	}
	return nil
}

func (h *headerWalk) u32() (uint32, error) {
	b, err := h.bytes(4)
	if err != nil {
		return 0, err
	}
	return h.order.Uint32(b), nil
}

func (h *headerWalk) u64() (uint64, error) {
	b, err := h.bytes(8)
	if err != nil {
		return 0, err
	}
	return h.order.Uint64(b), nil
}
