package realollama

// Special tokens of the tiny model, after its 256 byte tokens.
const (
	// TokenEndOfText is the beginning-of-sequence and padding token; the
	// model never produces it.
	TokenEndOfText = "<|endoftext|>"
	// TokenTurnStart opens a chat turn in the template.
	TokenTurnStart = "<|im_start|>"
	// TokenTurnEnd closes a chat turn; it is the model's end-of-generation
	// token and the Modelfile's stop word.
	TokenTurnEnd = "<|im_end|>"
)

// Token types as llama.cpp reads them from tokenizer.ggml.token_type.
const (
	tokenTypeNormal      int32 = 1
	tokenTypeControl     int32 = 3
	tokenTypeUserDefined int32 = 4
)

// Token ids of the special tokens: they follow the 256 byte tokens.
const (
	idEndOfText = 256 + iota
	idTurnStart
	idTurnEnd
	vocabSize
)

// vocab is a model's tokenizer as the GGUF file holds it, plus what the
// weights need to know about it.
type vocab struct {
	tokens []string
	types  []int32
	merges []string
	// pre is tokenizer.ggml.pre: the pre-tokenizer llama.cpp applies.
	pre string
	// endOfText (BOS and padding) and turnEnd (EOS) are token ids.
	endOfText, turnEnd int
	// writable says which tokens the model may write: printable text
	// only, so answers stay valid UTF-8 and never hold special tokens.
	writable []bool
}

func (v *vocab) size() int { return len(v.tokens) }

// byteToRune returns GPT-2's reversible byte-to-character table: printable
// bytes stand for themselves and every other byte is moved to the code
// point 256 and up, so that a byte-level BPE vocabulary never holds a
// whitespace or control character. llama.cpp's gpt2 tokenizer expects
// vocabulary entries in this form.
func byteToRune() [256]rune {
	var table [256]rune
	next := rune(256)
	for b := range 256 {
		if keepsItself(byte(b)) {
			table[b] = rune(b)
			continue
		}
		table[b] = next
		next++
	}
	return table
}

// keepsItself reports whether GPT-2's table maps a byte to its own code
// point: '!' to '~' and the Latin-1 ranges '¡' to '¬' and '®' to 'ÿ'.
func keepsItself(b byte) bool {
	return ('!' <= b && b <= '~') || (0xA1 <= b && b <= 0xAC) || (0xAE <= b)
}

// printable reports whether the model may write byte b: printable ASCII
// and newline.
func printable(b int) bool {
	return (b >= ' ' && b <= '~') || b == '\n'
}

// vocabulary returns the tiny model's token strings and their types: one
// token per byte in GPT-2's form, then the special tokens. With no merges,
// every byte of a prompt becomes exactly one token, which makes token
// counts predictable (a prompt of n bytes is n tokens plus the template).
func vocabulary() (tokens []string, types []int32) {
	table := byteToRune()
	tokens = make([]string, 0, vocabSize)
	types = make([]int32, 0, vocabSize)
	for b := range 256 {
		tokens = append(tokens, string(table[b]))
		types = append(types, tokenTypeNormal)
	}
	for _, s := range []string{TokenEndOfText, TokenTurnStart, TokenTurnEnd} {
		tokens = append(tokens, s)
		types = append(types, tokenTypeControl)
	}
	return tokens, types
}

// byteVocab is the byte-level vocabulary of the default tiny model.
func byteVocab() *vocab {
	tokens, types := vocabulary()
	writable := make([]bool, len(tokens))
	for b := range 256 {
		writable[b] = printable(b)
	}
	return &vocab{tokens: tokens, types: types, merges: []string{}, pre: "default",
		endOfText: idEndOfText, turnEnd: idTurnEnd, writable: writable}
}
