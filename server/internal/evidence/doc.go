// Package evidence shows what each part of a stage's output rests on: for
// every paragraph, list item, table row and block quote, the passages of
// the stage's inputs and of the run's tool results that support it, with
// a score, and marks on what rests on nothing (a URL cited that no tool
// call read, a number, a date or a quotation that is in no source). It
// informs the person at a review gate; it never blocks a run or an
// approval, and it never fails: what it could not do is said in the
// result. It imports only the standard library and icm's markdown,
// textnorm and evidence/urls.
//
// # Units
//
// The output is parsed with icm's Markdown parser. A unit is a
// paragraph, a list item (each nested item and each further paragraph of
// an item its own unit), a table row (not the header row) or a block
// quote. Headings are not units: they name what follows, they claim
// nothing. Code blocks are not units either: code is judged by running
// or parsing it (the code-blocks checks), and a lexical match on code
// says little. A unit with fewer than two content words outside its URLs
// (a "Sources:" line, a name, a one-word row) holds no claim to look
// for; its marks still count.
//
// # Passages and words
//
// Each source is parsed the same way; its blocks (code blocks included)
// are cut into sentences, and each sentence is a passage, with the
// source's name and the headings above it ("notes.md › Local
// runtimes"). A sentence longer than 100 words is cut into windows of 100
// words, each starting 50 words after the last.
//
// Text is normalised with textnorm (byte order mark, CRLF) and split
// into words: runs of letters and digits, lower-cased; a number keeps
// its separators ("1,850" is one word, written 1850). Stop words
// (function words and the commonest verbs) carry no weight. Words are
// stemmed by a light suffix stripper of our own (plurals, -ing, -ed,
// -er, -est, -ly, -ation, a final e): it is applied to both sides, so all
// it must do is make the forms of one word meet, which lets a paraphrase
// that says "pruned" match a source that says "pruning"; a full Porter
// stemmer would be many more rules for little more matching.
//
// # Scores
//
// Each sentence of a unit finds its best passage with BM25 (Robertson
// and Zaragoza, with the usual k1 = 1.2 and b = 0.75, and Lucene's
// non-negative idf). BM25 is the well-known lexical ranker: it is
// deterministic, needs no model, and explains itself (a passage ranks
// high because it holds the unit's rarer words). Its raw scores are not
// comparable between units, so the unit's score is not BM25's but the
// share, weighed by idf, of the unit's words that the sources know (that
// some passage holds) which its sentences' best passages hold. Words no
// source uses may be a paraphrase's own words, so they count against the
// unit only up to the weight of four rare words: a unit that shares one
// or two names with the sources and says the rest in words they never use
// is not supported by those names. The second signal is shared word
// n-grams: the share of the unit's pairs of neighbouring content words
// that those passages hold, which is near 1 for copied text; the unit's
// lexical score is the higher of the two. A passage's own score is its
// part of the unit's. A unit is supported when its score reaches
// Options.Threshold (DefaultThreshold).
//
// The sentence granularity, the cap of four rare words and the threshold
// were chosen on the tune half of the quality set (testdata/quality,
// labelled before any of this was written): sentences as passages
// separated paraphrases from inventions better than paragraphs did, a
// weight for unknown words hurt paraphrases (most of whose words are new
// by the set's rule) more than inventions unless it was capped, and the
// threshold is the middle of the widest gap between the invented and the
// supported paragraphs of that half. TestQuality reports the held half.
//
// What a lexical method cannot do: tell a paraphrase that shares few
// words with its source from an invention that shares as many; see a
// sentence that joins two sources' sentences as supported by both (each
// sentence of a unit has one best passage); read a number written in
// words in the output. Where the model server has an embedding model the
// person names ([evidence] embed_model), an Embedder adds a semantic
// score to each unit the lexical score leaves unsupported: the best
// cosine similarity between the unit and its candidate passages (every
// passage when all fit in MaxEmbedTexts, else each unit's best ten by
// BM25). A unit's support is the better of the two, each against its
// threshold: Threshold for the lexical score, SemanticThreshold for the
// cosine (Score shows the semantic one at the lexical scale, so Score
// reaches Threshold when either does). No embedding model was measured
// here: DefaultSemanticThreshold is a cautious starting point, to be set
// from the model named. A model that fails (the server down, the model
// missing, MaxEmbedTime reached) leaves the lexical scores, with a note
// saying what to check; Compute never waits past its bounds for it.
//
// # Marks
//
// A URL the unit cites is marked when no tool call of the run fetched or
// returned it and no source contains it: the same URL finder and the same
// normalisation as the `sources` and `sources-from-tools` Verify checks
// (package evidence/urls), with the URLs of the sources' text, of tool
// calls' addresses and arguments, and Input.ReadURLs (the run record's
// provenance) counted as read. A number is marked when no source has it:
// numbers compare by value as written in digits ("1,850" is 1850, "3.50"
// is 3.5), and a source's number words count too ("five hours" holds 5;
// one to twelve, fifteen, the tens to sixty, hundred, thousand, once,
// twice, a pair, a dozen); a dotted address like 127.0.0.1 compares as
// written. A date is marked when no
// source has it in any common form (3 March 2024, March 3, 2024,
// 2024-03-03, 03/04/2024 read both ways; a month and year; a day and
// month); a date's digits are not numbers too, nor a URL's. A quotation
// of three or more words in double quotes (straight or curly) is marked
// when no source has its words in that order.
//
// # Bounds
//
// Evidence is computed within bounds, each an Options field with its
// default; past one the result is Partial and Limits says which:
//
//   - MaxOutputBytes (1 MiB): the output is read up to here (at a line).
//   - MaxUnits (2,000): the units checked.
//   - MaxSourceBytes (16 MiB): all sources together are read up to here.
//   - MaxPassages (50,000): the passages indexed.
//   - MaxTime (5 s): a context deadline over the lexical computation;
//     units not reached are Unchecked.
//   - MaxEmbedTexts (512): the texts sent to the embedding model, in
//     requests of 64; half at most are units.
//   - MaxEmbedTime (20 s): a context deadline over the embedding model's
//     requests; past it the scores are lexical, with a note.
//
// A 5,000-word output against 50,000 words of sources takes well under
// the time bound (BenchmarkEvidence).
//
// # Cache
//
// A Cache keeps whole results by Key: the output's and the sources'
// bytes and the options that change a result. It holds a fixed number
// and forgets the least recently used; partial results and results whose
// embedding model failed are not kept. It also keeps the embedding
// model's vectors by model and text hash (at most 2,048, the most
// recently used), so that a result worked out again for an edited
// output embeds only the units that changed; a model that failed
// halfway keeps the requests it answered.
package evidence
