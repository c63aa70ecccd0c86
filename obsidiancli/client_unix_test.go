//go:build unix

package obsidiancli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}, Grandchild: pidfile})
	c := newClient(f)
	// Long enough for the fake (this test binary, slow to start under
	// -race on a busy machine) to start its grandchild before the limit:
	// a group killed sooner leaves no grandchild to check on.
	c.Timeout = 2 * time.Second
	start := time.Now()
	_, err := c.Run(t.Context(), "read", "path=a.md")
	elapsed := time.Since(start)
	e := errors.From(err)
	if e.Kind != errors.Timeout || e.Code() != -32006 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v (%s), want TIMEOUT wrapping DeadlineExceeded", err, e.Kind)
	}
	// Without the group kill and WaitDelay the call would wait for the
	// grandchild's hour; the bound is loose so a busy machine cannot fail it.
	// Typically it answers ~10 ms after the limit.
	t.Logf("answered %v after the %v limit", elapsed-c.Timeout, c.Timeout)
	if elapsed > c.Timeout+5*time.Second {
		t.Errorf("answered after %v, far past the %v limit", elapsed, c.Timeout)
	}
	obsidiantest.WaitGone(t, obsidiantest.GrandchildPID(t, pidfile))
}

func TestRunGrandchildHoldingPipes(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	f := obsidiantest.Install(t, obsidiantest.Scenario{Grandchild: pidfile})
	start := time.Now()
	out, err := newClient(f).Run(t.Context(), "version")
	if err != nil || !strings.HasPrefix(out, "1.12.7") {
		t.Fatalf("Run = %q, %v; want the answer despite the held pipe", out, err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v: a grandchild holding stdout must not hold the answer", elapsed)
	}
	// It outlives a successful CLI call by design (the CLI may start the app).
	obsidiantest.Kill(obsidiantest.GrandchildPID(t, pidfile))
}
