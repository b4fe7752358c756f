// Package ollamamodel reads a model that a local Ollama server has pulled
// (its manifest, its GGUF file's tokenizer, its chat template, system
// prompt and stored messages) and counts a chat request the way that
// server will: it builds the prompt as v0.17's chat handler does (the
// model's messages and system prompt, thinking on by default for models
// that can think, a built-in parser's view of the tools, the built-in
// renderer or the Go template) and tokenizes it as the runner that serves
// the model will (Ollama's own engine or llama.cpp, which tokenize alike
// for the vocabularies covered here).
//
// It builds on the Ollama module's own packages (fs/ggml reads GGUF,
// tokenizer encodes, template renders, model/renderers and model/parsers
// are the built-in formats, thinking finds think tags) and links none of
// its server: those packages need neither gin nor the ggml backend. The
// one thing the module keeps in a package that would bring the backend in
// (model/models) is which pre-tokenizer each architecture uses; that table
// is repeated here (pretokenizers.go) and a test checks it against the
// pinned module's source.
//
// A model whose tokenizer is not covered (SentencePiece served by
// llama.cpp, WordPiece, an unknown pre-tokenizer) is reported with
// ErrNotCovered, so callers fall back to another method instead of
// calling a guess exact.
package ollamamodel
