package lsp

import (
	"os"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// The connection's lifecycle: initialize, initialized, shutdown (exit is
// dispatch.go's), the editor's folders and the settings. The editor's
// trust is trust.go's.

// capabilities are what the server offers (initialize).
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
		SemanticTokensProvider:  &protocol.SemanticTokensOptions{Legend: tokenLegend, Full: true},
		Workspace: &protocol.ServerCapabilitiesWorkspace{
			WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{Supported: &yes, ChangeNotifications: &protocol.BoolOrString{Value: true}},
		},
	}
}

// initialize records the client's folders, capabilities, settings and
// trust, and says what the server offers.
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
	s.client.setCapabilities(p.Capabilities)
	s.mu.Lock()
	s.folders = folders
	s.settings = readSettings(s.settings, p.InitializationOptions)
	s.restricted.Store(!editorTrusted(p.InitializationOptions))
	s.initialized = true
	s.mu.Unlock()
	if logToClient(p.InitializationOptions) {
		send := s.client.notify
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
	s.bg.Go(func() {
		for _, f := range folders {
			s.env.set.Discover(f)
		}
		registerWatchers(s.ctx, s.client)
	})
	return nil
}

// shutdownRequest stops every run and stage test; exit ends the
// connection (dispatch.go).
func (s *Server) shutdownRequest(*glsp.Context) error {
	s.env.runs.cancelAll()
	s.env.tests.cancelAll()
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil
}

// didChangeFolders forgets the workspaces of the folders the editor
// closed and finds those of the folders it opened, off the read loop.
func (s *Server) didChangeFolders(_ *glsp.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	var added []string
	for _, f := range p.Event.Removed {
		if path, err := pathOf(f.URI); err == nil {
			s.env.set.Remove(path)
		}
	}
	for _, f := range p.Event.Added {
		if path, err := pathOf(f.URI); err == nil {
			added = append(added, path)
		}
	}
	s.bg.Go(func() {
		for _, f := range added {
			s.env.set.Discover(f)
		}
	})
	return nil
}

// didChangeConfiguration takes the settings in force and opens every
// workspace again with them.
func (s *Server) didChangeConfiguration(_ *glsp.Context, p *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	s.settings = readSettings(s.settings, p.Settings)
	s.mu.Unlock()
	for _, w := range s.env.set.All() {
		w.Touch(true)
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
