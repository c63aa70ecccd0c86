package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
)

// A supervisor runs the server process of one command namespace:
//
//   - started when first needed (ensure), in a process group of its own,
//     with its stderr in our log;
//   - initialized once per process, by the gateway;
//   - when it dies, it is started again after 1 s, 2 s, 4 s … up to 60 s
//     (the wait starts again at 1 s once a process has run for 30 s);
//   - stopped with end of input, SIGTERM, then SIGKILL to its group;
//   - states stopped, starting, running, stopping and error.
//
// It knows nothing of sessions or requests: every line the process writes
// (except the answer to the gateway's initialize) and its end go to the
// routing side (processEvents, the commandPeer in route.go), which never
// starts or stops anything itself.
type supervisor struct {
	ns      Namespace
	version string
	logger  *slog.Logger
	backoff Backoff
	// maxLine bounds a line of the server's output kept whole.
	maxLine int
	events  processEvents
	// logs paces what the server writes into our log (stderr, junk).
	logs *logLimit

	mu       sync.Mutex
	state    string
	proc     *proc
	restarts int
	failures int
	lastErr  string
	timer    *time.Timer
	retryAt  time.Time
	closed   bool
}

// processEvents is what a supervisor tells the side that routes the
// process's messages.
type processEvents interface {
	// fromServer is one line the process wrote, whole.
	fromServer(pr *proc, line []byte)
	// tooLong is the start of a line longer than the supervisor's
	// maxLine (at most answerHead bytes), the rest of which was skipped.
	tooLong(head []byte)
	// exited says the process ended: whatever waits on it is answered
	// with why. It returns how many were.
	exited(pr *proc, why string) int
}

func newSupervisor(ns Namespace, version string, backoff Backoff, maxLine int, logger *slog.Logger, events processEvents) *supervisor {
	return &supervisor{ns: ns, version: version, backoff: backoff, maxLine: maxLine, logger: logger, events: events, state: stateStopped, logs: newLogLimit()}
}

// Backoff is the wait before a process that died is started again.
type Backoff struct{ Initial, Max time.Duration }

// DefaultBackoff is 1 s doubling to 60 s.
var DefaultBackoff = Backoff{Initial: time.Second, Max: 60 * time.Second}

// wait is the n-th wait (n from 1).
func (b Backoff) wait(n int) time.Duration {
	d := b.Initial
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// Process states.
const (
	stateStopped  = "stopped"
	stateStarting = "starting"
	stateRunning  = "running"
	stateStopping = "stopping"
	stateError    = "error"
)

const (
	// initTimeout bounds a new process's answer to initialize.
	initTimeout = 30 * time.Second
	// stableRun is how long a process must run for the back-off to start
	// again from its first wait.
	stableRun = 30 * time.Second
	// stopWait is how long a process has to exit after SIGTERM, before
	// SIGKILL.
	stopWait = 5 * time.Second
	// eofWait is how long a process has to exit on end of input before
	// SIGTERM.
	eofWait = 2 * time.Second
	// gatewayProtocol is the MCP revision the gateway asks for: the newest
	// with initialize (negotiate answers each client with its own).
	gatewayProtocol = "2025-11-25"
	initID          = `"obsidian-mcp-gateway-initialize"`
)

// running is the process if it serves.
func (p *supervisor) running() *proc {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == stateRunning {
		return p.proc
	}
	return nil
}

// ensure is the running process, started if need be and waited for.
func (p *supervisor) ensure(ctx context.Context) (*proc, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("the gateway is stopping")
	}
	switch p.state {
	case stateError:
		wait := max(0, time.Until(p.retryAt))
		err := fmt.Errorf("the %s server is not running: %s; it is started again in %s", p.ns.Name, p.lastErr, wait.Round(100*time.Millisecond))
		p.mu.Unlock()
		return nil, err
	case stateStopped:
		p.startLocked()
	}
	pr, why := p.proc, p.lastErr
	p.mu.Unlock()
	if pr == nil {
		return nil, fmt.Errorf("the %s server could not be started: %s", p.ns.Name, why)
	}
	select {
	case <-pr.init:
	case <-ctx.Done():
		return nil, fmt.Errorf("the %s server was still starting when the request was given up", p.ns.Name)
	}
	if pr.initErr != nil {
		return nil, fmt.Errorf("the %s server could not be started: %w", p.ns.Name, pr.initErr)
	}
	return pr, nil
}

// startLocked starts a process (p.mu held): state starting, or error
// with a restart scheduled when it cannot even start.
func (p *supervisor) startLocked() {
	cmd := exec.Command(expandHome(p.ns.Command), p.ns.Args...)
	cmd.Dir = expandHome(p.ns.Cwd)
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(p.ns.Env)) {
		cmd.Env = append(cmd.Env, k+"="+p.ns.Env[k])
	}
	inGroup(cmd)
	pr := &proc{cmd: cmd, init: make(chan struct{}), initAnswer: make(chan initAnswer, 1), exited: make(chan struct{}),
		outDone: make(chan struct{}), errDone: make(chan struct{})}
	// Pipes of our own rather than exec's: Wait then waits for the
	// process only, and what it wrote last is still read after it exited.
	stdin, err1 := cmd.StdinPipe()
	stdout, outW, err2 := os.Pipe()
	stderr, errW, err3 := os.Pipe()
	err := errors.Join(err1, err2, err3)
	if err == nil {
		cmd.Stdout, cmd.Stderr = outW, errW
		err = cmd.Start()
	}
	for _, f := range []*os.File{outW, errW} {
		if f != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		for _, f := range []*os.File{stdout, stderr} {
			if f != nil {
				_ = f.Close()
			}
		}
		p.proc = nil
		p.failLocked(fmt.Sprintf("%s cannot be started: %v", p.ns.Command, err), 0)
		return
	}
	pr.stdin, pr.pid, pr.started = stdin, cmd.Process.Pid, time.Now()
	p.proc, p.state = pr, stateStarting
	p.logger.Info("server process started", "pid", pr.pid, "command", p.ns.Command)
	go p.readStderr(pr, stderr)
	go p.readStdout(pr, stdout)
	go p.wait(pr)
	go p.initialize(pr)
}

// failLocked records a failure and schedules the next start (p.mu held).
func (p *supervisor) failLocked(why string, ran time.Duration) {
	if ran >= stableRun {
		p.failures = 0
	}
	p.failures++
	p.state, p.lastErr = stateError, why
	wait := p.backoff.wait(p.failures)
	p.retryAt = time.Now().Add(wait)
	p.logger.Warn("server process failed; starting it again after a wait", "why", why, "wait", wait, "failures", p.failures)
	p.timer = time.AfterFunc(wait, p.restart)
}

func (p *supervisor) restart() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.state != stateError {
		return
	}
	p.restarts++
	p.startLocked()
}

// initialize does the handshake, once per process.
func (p *supervisor) initialize(pr *proc) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(initID), "method": "initialize", "params": map[string]any{
		"protocolVersion": gatewayProtocol, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "obsidian-mcp-gateway", "version": p.version},
	}})
	// A write that fails is most often to a process that is exiting, and
	// how it ended says more than "broken pipe": its end is waited for as
	// for an answer (wait records it), and the write's error is given only
	// if the process neither answers nor ends in time.
	writeErr := pr.write(msg)
	answers := pr.initAnswer
	if writeErr != nil {
		answers = nil
	}
	select {
	case a := <-answers:
		if a.err == nil {
			// Sent before anyone may send a request, as the protocol asks.
			a.err = pr.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		}
		if a.err == nil {
			// Running before ensure returns it: a caller that asks for the
			// running process just after (a notification passed on) must
			// find it, not a process still starting.
			p.mu.Lock()
			if p.proc == pr && p.state == stateStarting {
				p.state = stateRunning
			}
			p.mu.Unlock()
		}
		pr.initDone(a.result, a.err)
	case <-pr.exited:
		pr.initDone(nil, fmt.Errorf("the process exited before answering initialize (%s)", pr.exitWords()))
	case <-time.After(initTimeout):
		if writeErr != nil {
			pr.initDone(nil, fmt.Errorf("initialize could not be sent: %w", writeErr))
		} else {
			pr.initDone(nil, fmt.Errorf("no answer to initialize within %s", initTimeout))
		}
		_ = signalGroup(pr.pid, true)
	}
}

// answerHead is how much of a line too long to keep is passed on
// (tooLong): enough to find the id at its start.
const answerHead = 64 << 10

// readStdout passes each line the process writes on, but for the answer
// to the gateway's initialize, which it keeps.
func (p *supervisor) readStdout(pr *proc, r io.ReadCloser) {
	defer close(pr.outDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, size, err := stdio.ReadLine(br, p.maxLine, min(p.maxLine, answerHead))
		switch {
		case len(bytes.TrimSpace(line)) == 0:
		case size > p.maxLine:
			p.events.tooLong(line)
		case !initAnswered(pr, line):
			p.events.fromServer(pr, line)
		}
		if err != nil {
			return
		}
	}
}

// readStderr reads what the process says on stderr to its end: each line
// (its first 2,000 bytes) into our log, at the log's pace, and the last
// one kept to say how the process ended. A line of any length is read on
// (a scanner would stop at its limit, and the process then block on a
// full pipe).
func (p *supervisor) readStderr(pr *proc, r io.ReadCloser) {
	defer close(pr.errDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 16<<10)
	for {
		line, _, err := stdio.ReadLine(br, 2000, 2000)
		if len(line) > 0 {
			text := string(line)
			pr.lastStderr.Store(truncate(text, 300))
			p.logs.log(p.logger, slog.LevelInfo, "server stderr", "pid", pr.pid, "line", text)
		}
		if err != nil {
			return
		}
	}
}

// wait sees the process end: its waiting requests are answered with an
// error, and, unless the gateway is stopping, it is started again.
func (p *supervisor) wait(pr *proc) {
	err := pr.cmd.Wait()
	// Its last answers and words are read first; a grandchild holding
	// the pipes gets a moment, not forever.
	for _, done := range []chan struct{}{pr.outDone, pr.errDone} {
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	words := pr.exitWords()
	if err != nil && pr.cmd.ProcessState == nil {
		words = err.Error()
	}
	pr.initDone(nil, fmt.Errorf("the process exited (%s)", words))
	p.mu.Lock()
	next := "the gateway is stopping"
	if p.proc == pr {
		p.proc = nil
		if p.closed {
			p.state = stateStopped
		} else {
			p.failLocked("the process exited ("+words+")", time.Since(pr.started))
			next = "it is started again in " + p.backoff.wait(p.failures).String()
		}
	}
	p.mu.Unlock()
	p.logs.flush(p.logger)
	unanswered := p.events.exited(pr, fmt.Sprintf("the %s server exited before answering (%s); %s", p.ns.Name, words, next))
	// Only now, with the state no longer naming the process and nothing
	// left waiting on it, may those waiting for its end (close, at stop)
	// go on: closed first, a stop could return while health still said
	// "stopping" with the old pid (seen once in TestCommandStopKillsGroup
	// under -race).
	close(pr.exited)
	p.logger.Info("server process exited", "pid", pr.pid, "how", words, "unanswered", unanswered)
}

// Health: "no subprocess" until one is started, as the contract words it.
func (p *supervisor) health() Health {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := Health{Namespace: p.ns.Name, Status: p.state}
	if p.state == stateStopped {
		h.Status = "no subprocess"
	}
	if p.proc != nil {
		h.PID = p.proc.pid
	}
	return h
}

// Process is a command namespace's process, for the dashboard.
type Process struct {
	State    string `json:"state"`
	PID      int    `json:"pid,omitempty"`
	Restarts int    `json:"restarts"`
	LastExit string `json:"last_error,omitempty"`
}

func (p *supervisor) process() Process {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := Process{State: p.state, Restarts: p.restarts, LastExit: p.lastErr}
	if p.proc != nil {
		pr.PID = p.proc.pid
	}
	return pr
}

// close stops the process: end of input, then SIGTERM to its group if it
// has not exited within eofWait, then SIGKILL after stopWait.
func (p *supervisor) close() {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	pr := p.proc
	if pr != nil {
		p.state = stateStopping
	} else {
		p.state = stateStopped
	}
	p.mu.Unlock()
	if pr == nil {
		return
	}
	// MCP's stdio shutdown: end of input, a moment to exit, SIGTERM, a
	// longer moment, SIGKILL.
	_ = pr.stdin.Close()
	select {
	case <-pr.exited:
	case <-time.After(eofWait):
		_ = signalGroup(pr.pid, false)
	}
	select {
	case <-pr.exited:
	case <-time.After(stopWait):
		p.logger.Warn("server process still running after SIGTERM; killing it", "pid", pr.pid, "after", stopWait)
		_ = signalGroup(pr.pid, true)
		<-pr.exited
	}
	// Whatever it started and left in its group goes too.
	_ = signalGroup(pr.pid, true)
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
