# icm: build, test and run. `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/icm
# Where slow, reusable build products live (the real Ollama server, code-server).
CACHE_DIR ?= $(HOME)/.cache/icm-dev
export CACHE_DIR

.PHONY: help build test run vet bench fuzz clean ollama-test-server ollama-server-build mcp-inspector scripted-ollama

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-20s %s\n", $$1, $$2}'

build: ## build bin/icm
	$(GO) build -o $(BIN) ./server/cmd/icm

vet: ## go vet and gofmt check
	$(GO) vet ./...
	@out=$$(gofmt -l server contracts-schema 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: vet ## vet, then every test
	$(GO) test ./...

run: build ## run the sample workspace's next stage
	./$(BIN) check -w workspaces/course-research
	./$(BIN) probe -w workspaces/course-research 01-scope

bench: ## benchmarks (figures, not gates)
	$(GO) test -run '^$$' -bench . -benchmem ./...

ollama-test-server: ## run the real Ollama server with the tiny test model until Ctrl-C (builds it once into CACHE_DIR)
	$(GO) run ./server/internal/testutil/realollama/cmd/ollama-test-server

ollama-server-build: ## build the real Ollama server into CACHE_DIR, or find it there
	$(GO) run ./server/internal/testutil/realollama/cmd/ollama-test-server -build-only

# A scripted Ollama-compatible server (the ollamatest package) for demos
# and the VS Code e2e test; it prints its URL and stops on Ctrl-C.
OLLAMA_SCRIPT ?= server/internal/testutil/ollamatest/testdata/scripts/course.json
scripted-ollama: ## serve OLLAMA_SCRIPT (a JSON script) as a fake Ollama on 127.0.0.1 until Ctrl-C
	$(GO) run ./server/internal/testutil/ollamatest/cmd/scripted-ollama $(OLLAMA_SCRIPT)

clean: ## remove build products
	rm -rf bin

# The official MCP Inspector; server/internal/cli's interop test drives icm's
# MCP servers with it (keep the version in step with mcp_inspector_test.go).
INSPECTOR_VERSION := 2.12.0
mcp-inspector: ## install the MCP Inspector (for the MCP interop test) into CACHE_DIR
	@grep -qs '"version": "$(INSPECTOR_VERSION)"' $(CACHE_DIR)/inspector/node_modules/@modelcontextprotocol/inspector/package.json || \
	  npm install --prefix $(CACHE_DIR)/inspector --no-audit --no-fund @modelcontextprotocol/inspector@$(INSPECTOR_VERSION)
