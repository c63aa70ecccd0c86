package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// The tests that drive programs other than Go and this repository's own
// (the pinned npm clients: the TypeScript SDK, the MCP Inspector, the
// conformance suite, the filesystem server; curl; Chromium) run only when
// OBSIDIAN_MCP_TEST_CLIENTS is 1 (testenv.Clients), as .ci/run and make
// check set it: go test ./... then needs Go alone. With the switch on,
// the pinned npm clients are installed by the tests themselves
// (installClients), and a missing program fails the tests that need it,
// saying how to install it, where a skip would pass unseen.

// outside marks t as one that drives outside programs: without the
// switch it is skipped, saying how to run it.
func outside(t *testing.T) {
	t.Helper()
	if !testenv.Clients() {
		t.Skipf("drives programs beside Go (npm clients, curl, Chromium): runs with %s=1 (make check)", testenv.ClientsEnv)
	}
}

// clientsProblem says why scripts/clients could not be installed ("" when
// it is).
var clientsProblem string

// installClients runs npm ci in scripts/clients when its pinned packages
// are not there, once per test run.
func installClients() {
	if !testenv.Clients() {
		return
	}
	if _, err := os.Stat(filepath.Join(clientsDir, "node_modules", ".bin", "node")); err == nil {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		clientsProblem = "npm is not on PATH"
		return
	}
	fmt.Fprintln(os.Stderr, "installing the pinned npm clients: npm ci --prefix scripts/clients")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--prefix", clientsDir, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	if out, err := cmd.CombinedOutput(); err != nil {
		clientsProblem = fmt.Sprintf("npm ci failed: %v: %s", err, strings.TrimSpace(string(out)))
	}
}

// programFix says how to get each program the tests need.
var programFix = map[string]string{
	"curl":     "install curl (scripts/ci-packages does, on Debian and Ubuntu)",
	"chromium": "install Chromium (scripts/ci-packages does, on Debian and Ubuntu)",
}

// need is the path of program, or fails the test saying how to install it.
func need(t *testing.T, program string) string {
	t.Helper()
	outside(t)
	if p, err := exec.LookPath(program); err == nil {
		return p
	}
	t.Fatalf("%s is not installed: %s", program, programFix[program])
	return ""
}
