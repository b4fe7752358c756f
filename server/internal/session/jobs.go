package session

// The session's operations, grouped by what a person does with them. Each
// group is a small value over the session that shares its composed parts
// (the model client, the tool servers, tracing, the trust decision); the
// Session itself keeps the composition and reading the workspace as it is
// (Status, Check, Probe).

// Runs runs stages: a model's run, an agent's hand-in and a Script
// stage's subcommands.
type Runs struct{ s *Session }

// Runs is the session's run operations (run.go, submit.go, step.go).
func (s *Session) Runs() Runs { return Runs{s} }

// Reviews is what a person does at the gate: approve, read what the stage
// wrote, compare it with the model's version and the version before, and
// keep an agent's review note (reviews.go, versions.go).
type Reviews struct{ s *Session }

// Reviews is the session's review operations.
func (s *Session) Reviews() Reviews { return Reviews{s} }

// Tests selects, plans and runs stage tests and reads the saved runs
// (test.go).
type Tests struct{ s *Session }

// Tests is the session's stage-test operations.
func (s *Session) Tests() Tests { return Tests{s} }

// History reads the runs the traces in history/ tell: the list, one run
// with its tree, and one call's whole request and reply (history.go).
type History struct{ s *Session }

// History is the session's run history.
func (s *Session) History() History { return History{s} }

// Trust is the session's trust decision and what changes it: asking it
// before an operation that acts, granting, revoking (trust.go).
type Trust struct{ s *Session }

// Trust is the session's trust operations.
func (s *Session) Trust() Trust { return Trust{s} }

// Doctor checks what the work needs, line by line: the model server, the
// model, its window, the tool servers, web search (doctor.go).
type Doctor struct{ s *Session }

// Doctor is the session's check of what the work needs.
func (s *Session) Doctor() Doctor { return Doctor{s} }

// ModelServer is the model server in force: its models, its address, its
// context window and model downloads (models.go, client.go, pull.go).
type ModelServer struct{ s *Session }

// ModelServer is the session's model server.
func (s *Session) ModelServer() ModelServer { return ModelServer{s} }

// Counts counts a stage's calls before they are made, as a run will send
// them (count.go, probedoc.go, calibrate.go).
type Counts struct{ s *Session }

// Counts is the session's counting.
func (s *Session) Counts() Counts { return Counts{s} }

// Tools lists the tool servers' tools, starting each once for the
// session's life (tools.go).
type Tools struct{ s *Session }

// Tools is the session's tool listings.
func (s *Session) Tools() Tools { return Tools{s} }

// Setup is what icm setup asks and writes: the workspace's variables
// (setup.go).
type Setup struct{ s *Session }

// Setup is the session's setup operations.
func (s *Session) Setup() Setup { return Setup{s} }
