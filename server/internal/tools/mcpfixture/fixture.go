// Package mcpfixture is a small MCP server used by icm's tests: a handful of
// well-behaved tools (echo, add, fail, image, big) and, when it runs as its own
// process, badly behaved ones (hang, crash, flood, spawn) that exercise the
// client's deadlines, stderr handling and process-group clean-up.
package mcpfixture

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Options choose which tools the fixture offers.
type Options struct {
	// Name is the server name reported at initialize.
	Name string
	// Process enables the tools that only make sense in a child process
	// (hang, crash, flood, spawn, env); an in-process server leaves them out
	// because crash would take the test binary down with it.
	Process bool
	// Stderr receives flood output (os.Stderr in the command).
	Stderr io.Writer
	// Exit ends the process (os.Exit in the command).
	Exit func(code int)
	// SelfPath is the fixture binary, re-run by spawn as the grandchild.
	SelfPath string
	// PIDDir, when set, is where spawned grandchildren record their pid.
	PIDDir string
}

// New builds the fixture server.
func New(opts Options) *server.MCPServer {
	name := opts.Name
	if name == "" {
		name = "mcpfixture"
	}
	s := server.NewMCPServer(name, "1.0.0", server.WithToolCapabilities(false), server.WithRecovery())

	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Return the text unchanged."),
		mcp.WithString("text", mcp.Required(), mcp.Description("Text to return.")),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})

	s.AddTool(mcp.NewTool("add",
		mcp.WithDescription("Add two numbers."),
		mcp.WithNumber("a", mcp.Required(), mcp.Description("First addend.")),
		mcp.WithNumber("b", mcp.Required(), mcp.Description("Second addend.")),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sum := req.GetFloat("a", 0) + req.GetFloat("b", 0)
		return mcp.NewToolResultText(strconv.FormatFloat(sum, 'f', -1, 64)), nil
	})

	s.AddTool(mcp.NewTool("fail",
		mcp.WithDescription("Answer with a tool error carrying the message."),
		mcp.WithString("message", mcp.Required()),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError(req.GetString("message", "")), nil
	})

	s.AddTool(mcp.NewTool("broken",
		mcp.WithDescription("Fail inside the handler, which the server answers with a JSON-RPC error."),
	), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("handler is broken")
	})

	s.AddTool(mcp.NewTool("image",
		mcp.WithDescription("Return a caption and a tiny PNG."),
	), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nnot-really-a-png"))
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.NewTextContent("a caption"),
			mcp.NewImageContent(png, "image/png"),
		}}, nil
	})

	s.AddTool(mcp.NewTool("big",
		mcp.WithDescription("Return kb kibibytes of text."),
		mcp.WithInteger("kb", mcp.Required(), mcp.Min(0)),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 1024*req.GetInt("kb", 0))), nil
	})

	s.AddTool(mcp.NewTool("slow",
		mcp.WithDescription("Sleep ms milliseconds (or until cancelled), then answer."),
		mcp.WithInteger("ms", mcp.Required(), mcp.Min(0)),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(time.Duration(req.GetInt("ms", 0)) * time.Millisecond):
			return mcp.NewToolResultText("done"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})

	// lookup has a schema with a local $ref into "definitions", a keyword
	// mcp-go's typed Tool drops; the client must keep it.
	s.AddTool(mcp.NewToolWithRawSchema("lookup", "Look up a colour by name.", json.RawMessage(`{
		"type": "object",
		"definitions": {"colour": {"type": "string", "enum": ["red", "green", "blue"]}},
		"properties": {"colour": {"$ref": "#/definitions/colour"}},
		"required": ["colour"],
		"additionalProperties": false
	}`)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("found " + req.GetString("colour", "")), nil
	})

	if opts.Process {
		addProcessTools(s, opts)
	}
	return s
}

func addProcessTools(s *server.MCPServer, opts Options) {
	s.AddTool(mcp.NewTool("hang",
		mcp.WithDescription("Never answer, ignoring cancellation."),
	), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {}
	})

	s.AddTool(mcp.NewTool("crash",
		mcp.WithDescription("Exit the server mid-call with the given code."),
		mcp.WithInteger("code", mcp.Min(0), mcp.Max(125)),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		code := req.GetInt("code", 3)
		fmt.Fprintf(opts.Stderr, "fixture: crashing on purpose with code %d\n", code)
		opts.Exit(code)
		return nil, nil
	})

	s.AddTool(mcp.NewTool("flood",
		mcp.WithDescription("Write mb mebibytes to stderr, then answer."),
		mcp.WithInteger("mb", mcp.Required(), mcp.Min(0)),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		line := strings.Repeat("f", 1023) + "\n"
		mb := req.GetInt("mb", 1)
		for i := 0; i < mb*1024; i++ {
			if _, err := io.WriteString(opts.Stderr, line); err != nil {
				return nil, err
			}
		}
		fmt.Fprintln(opts.Stderr, "fixture: flood finished")
		return mcp.NewToolResultText(fmt.Sprintf("flooded %d MiB", mb)), nil
	})

	s.AddTool(mcp.NewTool("spawn",
		mcp.WithDescription("Start a grandchild process that sleeps; answer its pid."),
		mcp.WithBoolean("ignore_term", mcp.Description("The grandchild ignores SIGTERM.")),
		mcp.WithBoolean("setsid", mcp.Description("The grandchild starts a session of its own, leaving the server's process group.")),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := []string{"-sleeper"}
		if opts.PIDDir != "" {
			args = append(args, "-piddir", opts.PIDDir)
		}
		if req.GetBool("ignore_term", false) {
			args = append(args, "-ignore-term")
		}
		// The grandchild reports on fd 3 once its pid file is written, so
		// the answer is only sent when the pid is on disk.
		readyR, readyW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		defer readyR.Close()
		cmd := exec.Command(opts.SelfPath, args...)
		// The grandchild holds the server's stdout and stderr open, as a
		// careless helper would, so the client cannot rely on EOF alone.
		cmd.Stdout = os.Stdout
		cmd.Stderr = os.Stderr
		cmd.ExtraFiles = []*os.File{readyW}
		if req.GetBool("setsid", false) {
			cmd.SysProcAttr = newSession()
		}
		err = cmd.Start()
		readyW.Close()
		if err != nil {
			return nil, err
		}
		go func() { _ = cmd.Wait() }()
		if _, err := io.ReadAll(readyR); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(strconv.Itoa(cmd.Process.Pid)), nil
	})

	s.AddTool(mcp.NewTool("env",
		mcp.WithDescription("Return an environment variable, or (unset)."),
		mcp.WithString("name", mcp.Required()),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, ok := os.LookupEnv(req.GetString("name", ""))
		if !ok {
			v = "(unset)"
		}
		return mcp.NewToolResultText(v), nil
	})
}

// PIDFile is where a fixture process with pid records itself under dir.
func PIDFile(dir string, pid int) string {
	return filepath.Join(dir, strconv.Itoa(pid)+".pid")
}

// WritePID records the current process under dir.
func WritePID(dir string) error {
	pid := os.Getpid()
	tmp := PIDFile(dir, pid) + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, PIDFile(dir, pid))
}
