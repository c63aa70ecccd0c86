package gateway

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// events records what a supervisor tells the routing side.
type events struct {
	lines chan string
	long  chan string
	ended chan string
}

func newEvents() *events {
	return &events{lines: make(chan string, 16), long: make(chan string, 16), ended: make(chan string, 4)}
}

func (e *events) fromServer(_ *proc, line []byte) { e.lines <- string(line) }
func (e *events) tooLong(head []byte)             { e.long <- string(head) }
func (e *events) exited(_ *proc, why string) int  { e.ended <- why; return 0 }

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
		var zero T
		return zero
	}
}

// TestSupervisorAlone drives a supervisor with no router: it starts the
// process when first needed, keeps the answer to its own initialize,
// passes every other line on (too long ones cut), reports the process's
// end with how it ended and when it comes back, and starts it again.
func TestSupervisorAlone(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "fake.log")
	ns := Namespace{Name: "alone", Command: exe, Env: map[string]string{"GATEWAY_FAKE_SERVER": "1", "FAKE_LOG": log}}
	ev := newEvents()
	s := newSupervisor(ns, "test", Backoff{Initial: 50 * time.Millisecond, Max: 50 * time.Millisecond}, 256, slog.New(slog.DiscardHandler), ev)
	defer s.close()
	if h := s.health(); h.Status != "no subprocess" {
		t.Errorf("before any need: %+v", h)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pr, err := s.ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pr.initResult), `"name":"fake"`) || s.running() != pr {
		t.Fatalf("after ensure: result %s, running %v", pr.initResult, s.running() == pr)
	}
	if err := pr.write([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	if got := within(t, ev.lines, "answer"); !strings.Contains(got, `"id":7`) {
		t.Errorf("first line passed on: %s (the initialize answer must not be)", got)
	}
	_ = pr.write([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"big","arguments":{"bytes":1000}}}`))
	if got := within(t, ev.long, "long line"); len(got) != 256 || !strings.Contains(got, `"id":8`) {
		t.Errorf("a line past maxLine: %d bytes %.60s", len(got), got)
	}
	_ = pr.write([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"crash"}}`))
	why := within(t, ev.ended, "exit")
	if !strings.Contains(why, "exit status 3: crashing now") || !strings.Contains(why, "started again in 50ms") {
		t.Errorf("exit reported as %q", why)
	}
	within(t, pr.exited, "exited closed")
	deadline := time.Now().Add(10 * time.Second)
	for s.process().Restarts == 0 || s.running() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("never started again: %+v", s.process())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p := s.process(); p.State != stateRunning || p.PID == pr.pid || !strings.Contains(p.LastExit, "exit status 3") {
		t.Errorf("after the restart: %+v (old pid %d)", p, pr.pid)
	}
}
