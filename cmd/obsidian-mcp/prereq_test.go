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
)

// The README's test command runs every test on a machine prepared as the
// README says (Go; Node.js 20 or later with npm; curl and Chromium, which
// scripts/ci-packages installs on Debian): nothing is skipped for want of
// a client. The pinned npm clients are installed by the tests themselves
// (installClients); a missing program fails the tests that need it,
// saying how to install it, where a skip would pass unseen.

// clientsProblem says why scripts/clients could not be installed ("" when
// it is).
var clientsProblem string

// installClients runs npm ci in scripts/clients when its pinned packages
// are not there, once per test run.
func installClients() {
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
	if p, err := exec.LookPath(program); err == nil {
		return p
	}
	t.Fatalf("%s is not installed: %s", program, programFix[program])
	return ""
}
