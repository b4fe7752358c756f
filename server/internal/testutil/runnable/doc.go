// Package runnable measures which stages of real workspaces icm runs as
// their authors meant them. Given folders that stand for repositories, it
// copies each to a temporary folder as a fresh clone has it (committed
// outputs included, an empty .git marking the root so shared /… inputs
// resolve), and runs every stage of every workspace in order the way a
// person does at a terminal: `icm --trust run --stage S --model M
// --adopt` (keeping the outputs committed with the workspace, as a person
// keeping the author's results answers icm's question; and yes when asked
// to run on an earlier stage's output that is not approved), then
// `icm --trust approve S`, through the CLI's own entry point (cli.Run, in
// this process: the same code the icm binary runs after it reads its
// arguments, so what is measured is what users run, without building a
// binary, and every error comes back as the value the CLI would render).
//
// The model is a scripted Ollama (package ollamatest) that answers by
// reading the tools it is offered: it reads every file a read tool
// offers, writes every output the write tool lists and then whatever
// the tool's answers say is still to write, and answers in plain text
// when it has neither tool (a write tool that names no file gets the
// one its description gives as an example). Each stage ends in one
// Outcome: ran (it reached its gate and was approved), manual (icm
// stopped for the person without calling the model or writing a file),
// adopted (its committed outputs were kept as approved, nothing run),
// refused (icm declined
// before any model call, with the fault's kind and its reasons), failed
// (the model was called and the run or its approval failed), or skipped
// (an input an earlier stage of this measurement did not produce).
//
// Measure returns a Report, whose Markdown method prints a table per
// workspace and the totals; cmd/runnable does the same for any folders.
package runnable
