# obsidian-mcp. Targets delegate to go and scripts/; `make help` lists them.

# One version for every build of a commit: manifest.json's (the bundle's,
# and what go install reports; internal/app.Version is held to it).
VERSION ?= $(shell sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' manifest.json | head -1)
LDFLAGS := -s -w -X main.version=$(VERSION)
# Pinned so every machine lints alike; fetched from the Go module proxy.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: help build check test stress lint relevance golden docs bench fuzz wine bundle tidy-check install-check clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-11s %s\n", $$1, $$2}'

build: ## build bin/obsidian-mcp with the version stamped in
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/obsidian-mcp ./cmd/obsidian-mcp

check: ## everything CI runs (.ci/run), installing the npm clients, Chromium and curl it needs
	bash .ci/run

test: ## the test suite with the race detector (Go alone; make check adds the outside clients)
	go test -race ./...

stress: ## the stress tier: loops at full count, size, load, busy CPU (Go alone)
	OBSIDIAN_MCP_TEST_STRESS=1 go test -timeout 30m ./...

lint: ## gofmt, go vet (also for Windows and macOS) and staticcheck (also for Windows)
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	GOOS=windows go vet ./...
	GOOS=darwin go vet ./...
	go run $(STATICCHECK) ./...
	@# Installed, not run with go run: built for GOOS=windows it would not start.
	bin=$$(mktemp -d) && GOBIN=$$bin go install $(STATICCHECK) && GOOS=windows $$bin/staticcheck ./...; s=$$?; rm -rf "$$bin"; exit $$s

golden: ## rewrite tool-schema snapshots, transcripts, README sections and manifest tools; review the diff
	go test ./tools ./internal/vaultserver ./internal/app -update

docs: ## rewrite the README's generated sections
	go test ./internal/app -run TestREADME -update

bench: ## side by side with the floor and the npm peers, then the Go benchmarks; see docs/benchmarks.md (not run by CI)
	scripts/bench

relevance: ## search quality on a vault nobody here wrote, ours beside mcpvault: VAULT=folder holding en/ of github.com/obsidianmd/obsidian-help, QUESTIONS=labelled questions (JSON, kept outside the repo); see docs/benchmarks.md
	@test -n "$(VAULT)" -a -n "$(QUESTIONS)" || { echo "make relevance VAULT=... QUESTIONS=... (see docs/benchmarks.md)"; exit 2; }
	go run ./scripts/relevance -vault "$(VAULT)" -questions "$(QUESTIONS)"
	BENCH_SEARCH=0 BENCH_CONTEXT=0 BENCH_SCALE=0 BENCH_GO=0 scripts/bench -sizes "" -relevance "$(realpath $(VAULT))" -questions "$(realpath $(QUESTIONS))"

fuzz: ## every fuzz target for FUZZTIME each (default 2m; CI runs 5s)
	scripts/fuzz $(or $(FUZZTIME),2m)

wine: ## the Windows build's tests under Wine 10 (scripts/wine; makes a Debian 13 root once, needs root or sudo)
	scripts/wine

bundle: ## release into dist/: binaries for 6 platforms, universal macOS, the .mcpb (verified), SHA256SUMS
	scripts/bundle

tidy-check: ## fail if go.mod/go.sum are not tidy
	go mod tidy -diff

install-check: ## go install …@latest, as a user would, from a module proxy built of the committed HEAD
	go run ./scripts/installcheck

clean: ## remove build output
	rm -rf bin dist bench-out
