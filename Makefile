# icm: build, test and run. `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/icm
# Where slow, reusable build products live (the real Ollama server, code-server).
CACHE_DIR ?= $(HOME)/.cache/icm-dev
export CACHE_DIR

.PHONY: help build test test-deps run demo vet lint bench bench-prefill fuzz clean ollama-test-server ollama-server-build mcp-inspector scripted-ollama \
	extension test-extension vsix e2e-deps e2e

help: ## list the targets
	@grep -E '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-20s %s\n", $$1, $$2}'

build: ## build bin/icm
	$(GO) build -o $(BIN) ./server/cmd/icm

vet: ## go vet and gofmt check
	$(GO) vet ./...
	@out=$$(gofmt -l server contracts-schema 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# Every Go test, each test binary under an explicit TEST_TIMEOUT, through
# testreport: go test's own lines, then a summary: what failed, each with
# the first line of why; the tests that skipped and why (a test whose
# program or ../shared this machine lacks skips, unless
# ICM_TEST_REQUIRE_ALL=1, as .ci/run sets, makes that a failure); the counts.
TEST_TIMEOUT ?= 20m
test: vet test-extension test-deps ## vet, the extension's unit tests, every Go test; then what failed, what skipped and why
	set -o pipefail; $(GO) test -timeout $(TEST_TIMEOUT) -json ./... | $(GO) run ./server/internal/testutil/testreport/cmd/testreport

# The real Ollama server that the llm, promptcount and realollama tests
# start is built first (as .ci/run does), so no test's timeout pays for the
# build. Where it cannot be built (the Debian headers .ci/run installs are
# missing) those tests skip, and the report at the end of make test lists them.
test-deps:
	@$(MAKE) --no-print-directory ollama-server-build || echo "make test: the real Ollama test server could not be built (see above); the tests that start it will skip, and the report at the end lists them"

WORKSPACE ?= workspaces/course-research
run: build ## trust the shipped WORKSPACE (saying so), run its next stage against the local Ollama (OLLAMA_HOST), stop at its review gate
	./$(BIN) check -w $(WORKSPACE)
	@echo "make run: trusting $(WORKSPACE), a workspace this repository ships: icm may start the tool servers and contact the search address it lists below (icm trust --revoke -w $(WORKSPACE) takes it back)"
	./$(BIN) trust --yes -w $(WORKSPACE)
	@command -v icm >/dev/null 2>&1 && [ "$$(command -v icm)" -ef "$(BIN)" ] || echo "make run: the commands icm suggests below say icm, which is $(BIN) here: put it on your PATH first (export PATH=\"$(CURDIR)/bin:\$$PATH\"), or type ./$(BIN) for icm"
	./$(BIN) run -w $(WORKSPACE)

# The sample pipeline end to end with canned answers, on a temporary copy:
# no model server needed. DEMO_FLAGS=--yes approves at every gate.
DEMO_FLAGS ?=
demo: build ## run the sample pipeline with canned answers, no model needed (DEMO_FLAGS=--yes approves each gate)
	./$(BIN) demo $(DEMO_FLAGS)

FUZZTIME ?= 30s
fuzz: ## run each fuzz target for FUZZTIME (seed corpora live in testdata/fuzz)
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

GOLANGCI_VERSION := v2.15.0
GOLANGCI := $(CACHE_DIR)/bin/golangci-lint-$(GOLANGCI_VERSION)
$(GOLANGCI):
	mkdir -p $(CACHE_DIR)/bin
	GOBIN=$(CACHE_DIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	mv $(CACHE_DIR)/bin/golangci-lint $@

# deadcode lists the functions no path from icm's main reaches: a test-only
# hook belongs in a _test.go file, anything else without a caller goes.
# The binary links nothing of server/internal/testutil/ (a test in
# server/cmd/icm fails when it does), so every package it reports is icm's.
DEADCODE_VERSION := v0.52.0
DEADCODE := $(CACHE_DIR)/bin/deadcode-$(DEADCODE_VERSION)
$(DEADCODE):
	mkdir -p $(CACHE_DIR)/bin
	GOBIN=$(CACHE_DIR)/bin $(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)
	mv $(CACHE_DIR)/bin/deadcode $@

lint: $(GOLANGCI) $(DEADCODE) ## golangci-lint with .golangci.yml, then deadcode (both installed into CACHE_DIR once)
	$(GOLANGCI) run ./...
	@out=$$($(DEADCODE) ./server/cmd/icm); if [ -n "$$out" ]; then echo "deadcode: unreachable from icm's main:"; echo "$$out"; exit 1; fi

bench: ## benchmarks (figures, not gates)
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-prefill: ollama-server-build ## what a For each stage costs in prefill against the real Ollama server (minutes; by hand)
	bench/prefill.sh

ollama-test-server: ## run the real Ollama server with the tiny test model until Ctrl-C (builds it once into CACHE_DIR)
	$(GO) build -o bin/ollama-test-server ./server/internal/testutil/realollama/cmd/ollama-test-server
	./bin/ollama-test-server

ollama-server-build: ## build the real Ollama server into CACHE_DIR, or find it there
	$(GO) build -o bin/ollama-test-server ./server/internal/testutil/realollama/cmd/ollama-test-server
	./bin/ollama-test-server -build-only

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

# The VS Code extension: package.json at the root is its manifest, the
# sources are in extension/. npm ci runs again whenever the lock file changes.
VSIX := bin/icm.vsix
CODE_SERVER_VERSION := 4.139.1

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

extension: node_modules/.package-lock.json ## type-check the extension and bundle it into extension/dist
	npm run --silent typecheck
	npm run --silent build

test-extension: node_modules/.package-lock.json ## the extension's unit tests (node:test)
	npm test --silent

# vsce runs the package.json vscode:prepublish script, which type-checks and bundles.
vsix: node_modules/.package-lock.json ## build icm for this platform into the extension and package bin/icm.vsix
	$(GO) build -ldflags '-s -w' -o extension/bin/icm ./server/cmd/icm
	@mkdir -p $(dir $(VSIX))
	npx vsce package --no-dependencies --skip-license --out $(VSIX)

e2e-deps: ## install code-server, Node 24 and Chromium for the e2e test (cached in CACHE_DIR)
	CODE_SERVER_VERSION=$(CODE_SERVER_VERSION) bash extension/test/e2e/install-deps.sh

e2e: vsix e2e-deps ## the extension in code-server and headless Chromium; screenshots in test-artifacts/e2e
	$(GO) build -o bin/scripted-ollama ./server/internal/testutil/ollamatest/cmd/scripted-ollama
	ICM_VSIX=$(VSIX) SCRIPTED_OLLAMA=bin/scripted-ollama CODE_SERVER_VERSION=$(CODE_SERVER_VERSION) \
	  node extension/test/e2e/run.mjs
