package lsp

import (
	"os"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// commandNames are the commands the server executes (docs/lsp-protocol.md).
var commandNames = []string{
	cmdStatus, cmdRunNext, cmdRunStage, cmdRunAll, cmdCancel, cmdApprove, cmdProbe, cmdOutputs, cmdCreateFile,
	cmdTestList, cmdTestRun, cmdTestCancel, cmdTrustList, cmdTrustGrant,
}

// protocolHandler assembles glsp's method table. Every method advertised
// in capabilities has a handler, and so do the notifications clients send
// whether or not they are advertised (so they are not answered "method not
// supported").
func (s *Server) protocolHandler() protocol.Handler {
	return protocol.Handler{
		Initialize:  s.initialize,
		Initialized: s.initializedNotification,
		Shutdown:    s.shutdownRequest,
		Exit:        func(*glsp.Context) error { return nil },
		SetTrace:    func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		LogTrace:    func(*glsp.Context, *protocol.LogTraceParams) error { return nil },
		Progress:    func(*glsp.Context, *protocol.ProgressParams) error { return nil },

		WindowWorkDoneProgressCancel: s.progressCancel,

		WorkspaceDidChangeWorkspaceFolders: s.didChangeFolders,
		WorkspaceDidChangeConfiguration:    s.didChangeConfiguration,
		WorkspaceDidChangeWatchedFiles:     s.didChangeWatchedFiles,
		WorkspaceSymbol:                    s.workspaceSymbol,
		WorkspaceExecuteCommand:            s.executeCommand,

		TextDocumentDidOpen:   s.didOpen,
		TextDocumentDidChange: s.didChange,
		TextDocumentDidSave:   s.didSave,
		TextDocumentDidClose:  s.didClose,
		TextDocumentWillSave:  func(*glsp.Context, *protocol.WillSaveTextDocumentParams) error { return nil },

		TextDocumentHover:          s.hover,
		TextDocumentCompletion:     s.completion,
		TextDocumentDefinition:     s.definition,
		TextDocumentDocumentLink:   s.documentLinks,
		TextDocumentDocumentSymbol: s.documentSymbols,
		TextDocumentCodeLens:       s.codeLenses,
		TextDocumentCodeAction:     s.codeActions,
		// Lenses come complete, but glsp routes codeLens/resolve by the
		// wrong field and would call a nil function: answer it as is.
		CodeLensResolve: func(_ *glsp.Context, l *protocol.CodeLens) (*protocol.CodeLens, error) { return l, nil },
	}
}

func (s *Server) capabilities() protocol.ServerCapabilities {
	yes := true
	incremental := protocol.TextDocumentSyncKindIncremental
	no := false
	return protocol.ServerCapabilities{
		TextDocumentSync: protocol.TextDocumentSyncOptions{
			OpenClose: &yes,
			Change:    &incremental,
			Save:      protocol.SaveOptions{IncludeText: &no},
		},
		HoverProvider:          true,
		CompletionProvider:     &protocol.CompletionOptions{TriggerCharacters: []string{"/", "#", ":", ",", "."}},
		DefinitionProvider:     true,
		DocumentLinkProvider:   &protocol.DocumentLinkOptions{},
		DocumentSymbolProvider: true,
		CodeLensProvider:       &protocol.CodeLensOptions{},
		CodeActionProvider: protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindSource},
		},
		ExecuteCommandProvider:  &protocol.ExecuteCommandOptions{Commands: allCommands()},
		WorkspaceSymbolProvider: true,
		Workspace: &protocol.ServerCapabilitiesWorkspace{
			WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{Supported: &yes, ChangeNotifications: &protocol.BoolOrString{Value: true}},
		},
	}
}

func (s *Server) initialize(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
	var folders []string
	for _, f := range p.WorkspaceFolders {
		if path, err := pathOf(f.URI); err == nil {
			folders = append(folders, path)
		}
	}
	if len(folders) == 0 && p.RootURI != nil {
		if path, err := pathOf(*p.RootURI); err == nil {
			folders = append(folders, path)
		}
	}
	if len(folders) == 0 && p.RootPath != nil && *p.RootPath != "" {
		folders = append(folders, snapshot.Canonical(*p.RootPath))
	}
	s.mu.Lock()
	s.caps = p.Capabilities
	s.folders = folders
	s.settings = readSettings(s.settings, p.InitializationOptions)
	s.restricted.Store(!editorTrusted(p.InitializationOptions))
	s.initialized = true
	s.mu.Unlock()
	if logToClient(p.InitializationOptions) {
		send := s.notify
		s.sink.notify.Store(&send)
	}
	version := s.opts.Version
	return protocol.InitializeResult{
		Capabilities: s.capabilities(),
		ServerInfo:   &protocol.InitializeResultServerInfo{Name: "icm", Version: &version},
	}, nil
}

// initializedNotification finds the workspaces and asks the client to
// report file changes, both off the read loop.
func (s *Server) initializedNotification(*glsp.Context, *protocol.InitializedParams) error {
	s.mu.Lock()
	folders := append([]string(nil), s.folders...)
	s.mu.Unlock()
	s.goBackground(func() {
		for _, f := range folders {
			s.set.Discover(f)
		}
		s.registerWatchers(s.ctx)
	})
	return nil
}

func (s *Server) shutdownRequest(*glsp.Context) error {
	s.runs.cancelAll()
	s.tests.cancelAll()
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil
}

func (s *Server) didChangeFolders(_ *glsp.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	var added []string
	for _, f := range p.Event.Removed {
		if path, err := pathOf(f.URI); err == nil {
			s.set.Remove(path)
		}
	}
	for _, f := range p.Event.Added {
		if path, err := pathOf(f.URI); err == nil {
			added = append(added, path)
		}
	}
	s.goBackground(func() {
		for _, f := range added {
			s.set.Discover(f)
		}
	})
	return nil
}

func (s *Server) didChangeConfiguration(_ *glsp.Context, p *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	s.settings = readSettings(s.settings, p.Settings)
	s.mu.Unlock()
	for _, st := range s.set.All() {
		st.Touch(true)
	}
	return nil
}

// getenv reads the environment through the options.
func (s *Server) getenv(k string) string {
	if s.opts.Getenv != nil {
		return s.opts.Getenv(k)
	}
	return os.Getenv(k)
}

// clientSupports reports a client capability through a reader function.
func (s *Server) clientSupports(f func(c protocol.ClientCapabilities) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f(s.caps)
}
