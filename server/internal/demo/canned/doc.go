// Package canned holds the stand-ins icm demo runs against, each on a
// free port of 127.0.0.1: a model server that speaks Ollama's API and
// answers from a script written in advance (Model, Script), a search
// backend that speaks SearXNG's JSON API (Search) and a web site of the
// demo's own pages (Site). They are part of icm, so they do only what the
// demo needs; the tests' scripted servers (testutil/ollamatest,
// testutil/fakesearx) do much more, and build on the pieces here that say
// how a prompt is counted, how an answer streams, how a script is read
// and what SearXNG answers, so the demo and the tests agree on them.
package canned
