// Package realollama runs the real Ollama server, built from the ollama Go
// module that server/internal/testutil/ollamaserver/go.mod pins (a module
// of its own, so the server's dependencies stay out of icm's go.mod; the
// same version as the root go.mod's), with a tiny model of our own, so
// tests can check what Ollama does (request validation, templates,
// streaming, structured output, context handling, errors) without
// internet or GPU.
//
// # Using it in a test
//
//	func TestChatAgainstRealOllama(t *testing.T) {
//		srv := realollama.Start(t, realollama.Options{NumParallel: 2})
//		client, err := llm.NewOllama(llm.WithBaseURL(srv.URL), llm.WithModel(srv.Model))
//		if err != nil {
//			t.Fatal(err)
//		}
//		// ... chat with num_ctx below srv.ContextLength, check what comes back
//	}
//
// Start builds the server the first time (minutes: see below; then it is
// cached in $CACHE_DIR/ollama-<version>/ollama, default ~/.cache/icm-dev),
// writes the model, starts `ollama serve` on a free 127.0.0.1 port with its
// own OLLAMA_MODELS and HOME, creates the model with `ollama create` and
// stops the server's whole process group when the test ends. Each Start is
// a new server (about a second); tests that can share one call Start once
// in a parent test and run subtests. `make ollama-server-build` builds
// ahead (CI does, so that no test binary's 10-minute timeout pays for a
// cold build; do the same on a new machine), and `make ollama-test-server`
// serves until Ctrl-C for trying things by hand.
//
// Pulls: a plain name such as "no-such-model" would make the server look up
// registry.ollama.ai, which tests must never do. Server.MissingModel names
// a model on an empty HTTPS registry on 127.0.0.1 that the server trusts;
// pulling it gets the real server's answer for a model that does not exist:
// HTTP 500 {"error":"pull model manifest: file does not exist"} (v0.17.4).
//
// Skips: `go test -short` skips every test that calls Start. A test also
// skips, saying why, when the Debian packages nlohmann-json3-dev and
// libstb-dev are missing on a developer's machine; under
// ICM_TEST_REQUIRE_ALL (.ci/run, which installs them) that is a failure.
//
// # The tiny model
//
// A llama model, 2 layers, 64 wide, F32, about 0.5 MB, with deterministic
// weights (WriteModel). Its tokenizer is byte-level gpt2 with no merges:
// one token per byte plus <|endoftext|>, <|im_start|> and <|im_end|>, and no
// BOS token, so a prompt of n bytes is n tokens plus the template's few.
// Its trained context length is DefaultContextLength (4096): num_ctx above
// it is cut to it, and a 15,000-byte prompt overflows any window. It
// writes printable ASCII and ends its answer by itself with chance about
// DefaultEndChance per token (done_reason "stop"; answers averaged 18 to 28
// tokens over 20 calls in this package's tests); with num_predict 1 it
// stops for length about 96% of the time. Tests that need one outcome
// repeat the call a bounded number of times, or fix options.seed.
// What it says is random: tests of what a model says belong to the
// scripted server. The Modelfile (testdata/Modelfile) has a ChatML-style
// template with .System, .Tools and tool-call rendering in <tool_call>
// tags, stop <|im_end|>, temperature 1, top_k 1000 and top_p 1.
//
// The server's build needs llama.cpp headers the module download leaves
// out: nlohmann/json and stb_image come from Debian, and miniaudio (audio
// input only, never used) from our stand-in in testdata/cheaders. The
// package needs a Unix system; the process checks read /proc on Linux.
package realollama
