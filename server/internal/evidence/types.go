package evidence

import "time"

// Input is what evidence is computed for: one output and what it may rest on.
type Input struct {
	// Path is the output's path as the person knows it (shown, not read).
	Path string
	// Text is the output's content, Markdown.
	Text []byte
	// Sources are the stage's input files and the run's tool results.
	Sources []Source
	// ReadURLs are further URLs the run's tool calls returned or read, as
	// the run's record keeps them (its sources provenance); URLs in
	// Sources count without being listed here.
	ReadURLs []string
}

// SourceKind says where a source came from.
type SourceKind string

// The kinds of sources.
const (
	// SourceInput is a file the stage was given.
	SourceInput SourceKind = "input"
	// SourceTool is what a tool call of the run returned.
	SourceTool SourceKind = "tool"
)

// Source is one named document an output may rest on.
type Source struct {
	Kind SourceKind
	// Name is how the source is shown: an input's path, a fetched page's
	// URL, or a tool's name.
	Name string
	// URL is the address a tool call fetched, when it fetched one: it
	// counts as read.
	URL string
	// Tool and CallID name the tool call a tool result came from.
	Tool, CallID string
	// Args are the tool call's arguments as text; the URLs in them count
	// as read, as they do for the sources checks.
	Args string
	// Text is the source's content (Markdown, or plain text).
	Text []byte
}

// Options tune the method and its bounds. The zero value means every
// default (see the package doc for what each bound protects).
type Options struct {
	// Threshold is the lexical score at or above which a unit is
	// supported; zero or less means DefaultThreshold.
	Threshold float64
	// SemanticThreshold is the cosine similarity at or above which a unit
	// is supported when Embedder is set; zero or less means
	// DefaultSemanticThreshold.
	SemanticThreshold float64
	// Support is how many passages each unit lists at most; zero means 3.
	Support int
	// MaxUnits caps the units of the output checked.
	MaxUnits int
	// MaxPassages caps the passages all sources are split into.
	MaxPassages int
	// MaxOutputBytes caps the bytes of the output read.
	MaxOutputBytes int
	// MaxSourceBytes caps the bytes of all sources together.
	MaxSourceBytes int
	// MaxTime caps the time one computation takes.
	MaxTime time.Duration
	// Embedder, when set, adds a semantic score to the lexical one.
	Embedder Embedder
	// MaxEmbedTexts caps the texts sent to Embedder in one computation.
	MaxEmbedTexts int
	// MaxEmbedTime caps the time Embedder is given in one computation.
	MaxEmbedTime time.Duration
}

// Defaults of Options.
const (
	// DefaultThreshold is the lexical score at or above which a unit is
	// supported, chosen on the tune half of the quality set (see the
	// package doc).
	DefaultThreshold = 0.325
	// DefaultSemanticThreshold is the cosine similarity at or above which
	// an embedding model's score supports a unit. No model was measured
	// for it: it is a cautious starting point (embedding models put
	// unrelated sentences of one language well above 0), to be set from
	// the model the person names ([evidence] embed_threshold).
	DefaultSemanticThreshold = 0.75
	// DefaultSupport is how many passages a unit lists at most.
	DefaultSupport = 3
	// DefaultMaxUnits and the other bounds are explained in the package doc.
	DefaultMaxUnits = 2000
	// DefaultMaxPassages bounds the passages indexed.
	DefaultMaxPassages = 50000
	// DefaultMaxOutputBytes bounds the bytes of the output read.
	DefaultMaxOutputBytes = 1 << 20
	// DefaultMaxSourceBytes bounds the bytes of all sources read.
	DefaultMaxSourceBytes = 16 << 20
	// DefaultMaxTime bounds the time of one computation.
	DefaultMaxTime = 5 * time.Second
	// DefaultMaxEmbedTexts bounds the texts sent to the embedding model.
	DefaultMaxEmbedTexts = 512
	// DefaultMaxEmbedTime bounds the time given to the embedding model: a
	// CPU embeds a few hundred short texts in this.
	DefaultMaxEmbedTime = 20 * time.Second
)

// withDefaults returns o with every unset field at its default.
func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Support, DefaultSupport)
	def(&o.MaxUnits, DefaultMaxUnits)
	def(&o.MaxPassages, DefaultMaxPassages)
	def(&o.MaxOutputBytes, DefaultMaxOutputBytes)
	def(&o.MaxSourceBytes, DefaultMaxSourceBytes)
	def(&o.MaxEmbedTexts, DefaultMaxEmbedTexts)
	if o.MaxTime <= 0 {
		o.MaxTime = DefaultMaxTime
	}
	if o.MaxEmbedTime <= 0 {
		o.MaxEmbedTime = DefaultMaxEmbedTime
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.SemanticThreshold <= 0 {
		o.SemanticThreshold = DefaultSemanticThreshold
	}
	return o
}

// Range is a byte range.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Result is the evidence for one output.
type Result struct {
	// Path is the output's path, as given.
	Path string `json:"path"`
	// Method says how scores were made: "lexical", or "lexical+semantic
	// (model)".
	Method string `json:"method"`
	// Threshold is the lexical score a unit needed to be supported;
	// SemanticThreshold the cosine similarity, when an embedding model
	// gave one.
	Threshold         float64 `json:"threshold"`
	SemanticThreshold float64 `json:"semantic_threshold,omitempty"`
	Units             []Unit  `json:"units"`
	Summary           Summary `json:"summary"`
	// Partial is set when a bound was reached; Limits says which.
	Partial bool     `json:"partial,omitempty"`
	Limits  []string `json:"limits,omitempty"`
	// Notes tell what else happened (an embedding model that failed).
	Notes []string `json:"notes,omitempty"`
	// Cached is set on a result a Cache had already computed.
	Cached bool `json:"cached,omitempty"`
}

// UnitKind says what part of the output a unit is.
type UnitKind string

// The kinds of units.
const (
	// KindParagraph is a paragraph.
	KindParagraph UnitKind = "paragraph"
	// KindItem is a list item, nested or not.
	KindItem UnitKind = "item"
	// KindRow is a table row other than the header.
	KindRow UnitKind = "row"
	// KindQuote is a block quote.
	KindQuote UnitKind = "quote"
)

// Status says what evidence found for a unit.
type Status string

// The statuses of a unit.
const (
	// Supported: passages of the sources score at or above the threshold.
	Supported Status = "supported"
	// Unsupported: no passages do.
	Unsupported Status = "unsupported"
	// NoClaim: the unit has fewer than two content words outside its URLs
	// (a "Sources:" line, a name, a one-word row); its marks still count.
	NoClaim Status = "no_claim"
	// Unchecked: a bound was reached before the unit was scored.
	Unchecked Status = "unchecked"
)

// Unit is one paragraph, list item, table row or block quote of the
// output and what it rests on.
type Unit struct {
	Kind UnitKind `json:"kind"`
	// Range is the unit's byte range in the output as given.
	Range Range `json:"range"`
	// Line and EndLine are 1-based lines of Range's start and end.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Headings are the output's headings the unit sits under, outermost first.
	Headings []string `json:"headings,omitempty"`
	// Text is the output's text in Range.
	Text   string `json:"text"`
	Status Status `json:"status"`
	// Score is the unit's support, 0 to 1: the better of Lexical and
	// Semantic (only when an embedding model scored the unit), the
	// semantic score put at the lexical scale (times Threshold over
	// SemanticThreshold), so that Score reaches Threshold exactly when
	// either score reaches its threshold.
	Score    float64  `json:"score"`
	Lexical  float64  `json:"lexical"`
	Semantic *float64 `json:"semantic,omitempty"`
	// Support lists the best passages, best first.
	Support []Passage `json:"support,omitempty"`
	// Marks are what in the unit rests on nothing.
	Marks []Mark `json:"marks,omitempty"`
}

// Passage is a piece of a source that supports a unit.
type Passage struct {
	// Source is the source's name; SourceKind and CallID say which it is.
	Source     string     `json:"source"`
	SourceKind SourceKind `json:"source_kind"`
	CallID     string     `json:"call_id,omitempty"`
	// Path is the source's name and the headings above the passage:
	// "notes.md › Local runtimes".
	Path string `json:"path"`
	// Range, Line and EndLine place the passage in the source as given.
	Range   Range  `json:"range"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
	Text    string `json:"text"`
	// Score is how much of the unit this passage alone supports, 0 to 1.
	Score    float64  `json:"score"`
	Semantic *float64 `json:"semantic,omitempty"`
}

// MarkKind says what a mark found.
type MarkKind string

// The kinds of marks.
const (
	// MarkURL: a URL the output cites that no tool call of the run
	// fetched or returned and no input contains (cited, never read).
	MarkURL MarkKind = "url_never_read"
	// MarkNumber: a number that appears in no source.
	MarkNumber MarkKind = "number"
	// MarkDate: a date that appears in no source, in any common form.
	MarkDate MarkKind = "date"
	// MarkQuote: quoted text whose words no source has in that order.
	MarkQuote MarkKind = "quote"
)

// Mark is one thing in a unit that rests on nothing.
type Mark struct {
	Kind MarkKind `json:"kind"`
	// Text is what was found, as the output writes it.
	Text string `json:"text"`
	// Range and Line place it in the output as given.
	Range Range `json:"range"`
	Line  int   `json:"line"`
	// Message says it in a sentence, for a person.
	Message string `json:"message"`
}

// Summary counts what the units show.
type Summary struct {
	// Units counts the units with a claim to check (not NoClaim).
	Units       int `json:"units"`
	Supported   int `json:"supported"`
	Unsupported int `json:"unsupported"`
	Unchecked   int `json:"unchecked,omitempty"`
	// URLsNeverRead ... QuotesNotFound count marks by kind.
	URLsNeverRead   int `json:"urls_never_read,omitempty"`
	NumbersNotFound int `json:"numbers_not_found,omitempty"`
	DatesNotFound   int `json:"dates_not_found,omitempty"`
	QuotesNotFound  int `json:"quotes_not_found,omitempty"`
	// Text is the summary in one line: "21 of 24 paragraphs supported ·
	// 1 URL never read".
	Text string `json:"text"`
}
