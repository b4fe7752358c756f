// Package ollamatest is a scripted model server that speaks Ollama's HTTP
// API, for tests of everything that calls a model: the llm client, the
// agent loop, stage runs, the MCP reader tools, the language server, the
// VS Code end-to-end test and the benchmarks. The test decides what the
// "model" says; the server answers in Ollama's exact wire format (it uses
// the types of github.com/ollama/ollama/api) and records every request.
//
// # A first test
//
//	srv := ollamatest.New(t, ollamatest.Config{
//		Models: []ollamatest.Model{{Name: "tiny", ContextLength: 8192}},
//	})
//	srv.On(ollamatest.LastUserContains("objectives")).Reply(ollamatest.Text("1. Learn Go"))
//	srv.Default(ollamatest.Text("ok"))
//
//	// point the code under test at srv.URL() (or use srv.Client())
//
//	reqs := srv.ChatRequests() // what the code under test sent
//	if reqs[0].NumCtx() == 0 { t.Error("the call did not size num_ctx") }
//
// New binds 127.0.0.1 on a free port and closes the server when the test
// ends. A chat call that nothing in the script answers gets HTTP 500 and
// fails the test at the end (set Config.AllowUnscripted to permit it).
// Outside a test, Listen starts a server and Close stops it.
//
// # Endpoints
//
//   - POST /api/chat: streamed as NDJSON unless "stream" is false, then one
//     JSON object. Chunks carry thinking, then content a word at a time,
//     then all tool calls in one chunk (ids "call_00000001", ...); the final
//     chunk has done, done_reason, prompt_eval_count, eval_count and the
//     durations. Errors follow Ollama 0.17: empty body or invalid JSON 400,
//     no model 400 "model is required", unknown model 404
//     {"error":"model 'x' not found"}, think true on a model without the
//     "thinking" capability 400, a think level ("high") 400, tools offered
//     to a model without "tools" 400, a format neither "json" nor a schema
//     object 500, no messages 200 with done_reason "load". A stream cut by
//     a Drop turn ends without its done chunk; note that api.Client then
//     returns nil (it ignores the read error), so callers must check for
//     the done chunk themselves.
//   - GET /api/tags, POST /api/show (details.family, model_info with
//     general.architecture and <family>.context_length, capabilities),
//     GET /api/version, GET or HEAD / ("Ollama is running").
//   - POST /api/embed: one vector per input string (Config.Embed, else
//     the words hashed onto Model.EmbeddingLength dimensions), counted by
//     EmbeddedTexts.
//   - POST /api/pull: progress lines ending in "success", after which the
//     model is installed; a model neither installed nor in Config.Pullable
//     fails with "pull model manifest: file does not exist" in the stream,
//     a pullable model with PullError fails with that. Non-streaming pulls
//     answer the last status, or 500 with the error.
//
// Names follow Ollama: "tiny" and "tiny:latest" are the same model, and
// responses echo the name the client sent.
//
// # Scripting answers
//
// Each chat call is answered by a Turn, chosen in this order:
//
//  1. rules, in the order added: srv.On(matcher).Reply(turns...) answers
//     every call the matcher accepts, with the turns in order and the last
//     one repeating; .Times(n) retires the rule after n answers;
//     .ReplyFunc(func(*Request) Turn) computes the answer from the call;
//  2. the queue: srv.Enqueue(turns...), one turn per call, in order;
//  3. the default: srv.Default(turn) or srv.DefaultFunc(f).
//
// Matchers read the Request (the decoded api.ChatRequest plus helpers):
// Any, LastUserContains, LastUserMatches, UserContains, SystemContains,
// HasToolResult(name or ""), ToolResultContains, HasTools, OffersTool,
// HasFormat, ModelIs, and And, Or, Not to combine them; any
// func(*Request) bool is a Matcher. A For each item is matched by its
// title with LastUserContains(title), since the item is in the user text.
//
// Turns say what the model does:
//
//	ollamatest.Text("the answer")
//	ollamatest.Calls(ollamatest.Call("search", map[string]any{"query": "go"}))
//	ollamatest.Think("reasoning", "answer")     // the thinking field
//	ollamatest.ThinkTags("reasoning", "answer") // "<think>...</think>" in the content
//	ollamatest.JSON(map[string]any{"ok": true}) // content for "format" calls
//	ollamatest.Length("partial")                // done_reason "length"
//	ollamatest.Fail(503, "")                    // HTTP 503 {"error": Ollama's busy text}
//	ollamatest.StreamFailure("partial", "boom") // {"error":"boom"} mid-stream (500 if not streaming)
//	ollamatest.Hang()                           // nothing until the client cancels
//	ollamatest.Drop("partial")                  // half the answer, then the connection closes
//	ollamatest.Flood("word ", n)                // the piece n times past num_predict, then done "stop"; n < 1: forever
//
// and can be adjusted: .WithDelay(d), .WithHold(ch) (wait in the slot until
// ch is closed), .WithPause(ch) (a streamed answer waits after its first
// chunk until ch is closed: the prompt read, the answer begun),
// .WithCounts(promptEval, eval), .WithCached(n) (report n reused prompt
// tokens, as newer servers do), .WithThinking(s). A
// fail-then-succeed script is one rule:
//
//	srv.On(ollamatest.Any()).Reply(ollamatest.Fail(503, ""), ollamatest.Fail(503, ""), ollamatest.Text("ok"))
//
// A thinking turn follows the request and model as Ollama does: think false
// drops the thinking; a model without the "thinking" capability gets it
// inline as <think>...</think> at the start of the content.
//
// # Token counts and truncation
//
// prompt_eval_count is counted, not scripted: Config.CountTokens (default:
// bytes/4, rounded up) over each message's role, content, thinking and tool
// calls plus the tools' and format's JSON; Engine.PromptTokens gives the
// same number to a test. Like Ollama, the server cuts a prompt that does
// not fit silently: the window is options.num_ctx (Config.DefaultNumCtx,
// 4096, when absent) capped by the model's ContextLength, and a longer
// prompt answers 200 with prompt_eval_count equal to that window, which
// is what truncation detection must catch. eval_count counts the answer
// the same way; options.num_predict cuts the content to that many tokens
// with done_reason "length". Turn.WithCounts overrides both counts.
//
// # Load: latency, slots, queue
//
// Config.Latency is spent by every answering call inside a slot;
// Config.Slots limits how many calls are answered at once (the rest wait,
// like OLLAMA_NUM_PARALLEL) and Config.MaxQueue how many may wait before
// 503. Stats reports Active, Waiting, PeakActive (the concurrency achieved,
// never above Slots) and PeakInFlight (the concurrency attempted), so a
// benchmark of "8 For each items at 200 ms per call with 4 slots" checks
// PeakActive == 4 instead of timing anything. To assert concurrency
// exactly, hold the calls in their slots and wait for the state you expect:
//
//	hold := make(chan struct{})
//	srv.Default(ollamatest.Text("item").WithHold(hold))
//	// start 8 calls ...
//	srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Active == 4 && s.Waiting == 4 })
//	close(hold)
//
// # Recording
//
// Requests returns every request (method, path, body, status, times, the
// decoded chat call and the Reply it got); ChatRequests returns the chat
// calls, whose Options (num_ctx ...) tests assert on; RequestsTo filters by
// path; Stats counts; Await and AwaitChats wait for a condition without
// sleeping. All are safe for concurrent use.
//
// # Other fronts
//
// The script, load model and records live in Engine, which knows nothing of
// HTTP: a front decodes its wire format into a Request, calls
// Engine.Respond and writes the Reply its own way. The Ollama front is
// ollama_*.go; the OpenAI-compatible front (openai_*.go) sits beside it on
// the same Server and Engine, so one script answers both:
//
//   - POST /v1/chat/completions, as vLLM answers it: server-sent events
//     when "stream" is true (a role chunk, content a word at a time,
//     reasoning_content for thinking, each tool call as its name then its
//     arguments in two pieces, the finish reason, a usage chunk when
//     stream_options.include_usage asks, then [DONE]), else one
//     chat.completion object. The call is translated into the same
//     Request: tool results get the name of the call they answer (so
//     HasToolResult works), max_tokens becomes num_predict,
//     response_format becomes format, chat_template_kwargs.enable_thinking
//     becomes think. The window is the model's whole ContextLength
//     (Request.Window); a prompt plus max_tokens beyond it is refused with
//     400 "maximum context length is ...", never cut. Errors use OpenAI's
//     {"error": {"message", "type", "code"}} shape; an unknown model is 404
//     "The model `x` does not exist."; a StreamFailure turn sends an error
//     event mid-stream.
//   - GET /v1/models: the installed models with max_model_len.
//   - POST /tokenize and POST /apply-template when Config.Tokenize names a
//     server: TokenizeVLLM answers vLLM's chat form ({"model",
//     "messages", "tools", "chat_template_kwargs"}) with {"count",
//     "max_model_len", "tokens"} and its completion form ({"prompt"});
//     TokenizeLlamaCpp answers llama-server's /apply-template with
//     {"prompt"} (the text the engine counts a call by) and its /tokenize
//     {"content", ...} with {"tokens"} (none for a body without content).
//     Either count equals the prompt_tokens the chat endpoint reports for
//     the same request. Without Config.Tokenize both answer 404.
//
// # Script files
//
// The scripted-ollama program (cmd/scripted-ollama) serves a script file;
// tests can load the same files with ReadScriptFile and ScriptFile.Apply.
// Every field is optional and unknown fields are errors:
//
//	{
//	  "models":   [{"name": "tiny", "context_length": 8192, "family": "qwen3",
//	                "capabilities": ["completion", "tools"]}],
//	  "pullable": [{"name": "qwen3:4b"}, {"name": "broken", "pull_error": "disk full"}],
//	  "latency": "200ms", "slots": 4, "max_queue": 0, "default_num_ctx": 4096,
//	  "rules": [
//	    {"when": {"last_user_contains": "objectives"},
//	     "reply": [{"content": "1. Learn Go"}]},
//	    {"when": {"offers_tool": "search", "has_tool_result": false},
//	     "reply": [{"tool_calls": [{"name": "search", "arguments": {"query": "go"}}]}]},
//	    {"when": {"has_format": true}, "reply": [{"json": {"ok": true}}]},
//	    {"when": {"system_contains": "flaky"}, "times": 2,
//	     "reply": [{"status": 503}]}
//	  ],
//	  "queue":   [{"thinking": "hmm", "content": "first call"}],
//	  "default": {"content": "ok"}
//	}
//
// Conditions of "when" (all must hold; {} matches every call):
// last_user_contains, last_user_matches (a Go regular expression),
// user_contains, system_contains, tool_result_from (a tool name),
// tool_result_contains, has_tool_result, has_tools, has_format (true or
// false), offers_tool, model. Turn fields: content, json (any JSON value,
// sent compact as the content), thinking, tool_calls, done_reason,
// prompt_eval_count, eval_count, delay, status, error, stream_error, hang,
// drop. Durations are Go duration strings ("200ms").
package ollamatest
