// Package obsidiancli runs the official Obsidian CLI (`obsidian`, Obsidian ≥
// 1.12) and implements the tools' Backend on top of it, and only on it.
//
// Client says what happened to the process: it builds the argv (vault= first),
// enforces the timeout by killing the CLI's whole process group, and turns the
// CLI's answers (exit 0 with "Error:" on stdout, exit 1 with stderr when the
// app is unreachable, noise lines) into typed errors. Backend adds the note
// semantics the CLI lacks: refusing ambiguous names and silent side copies,
// and refusing content the CLI would corrupt (note.ErrNeedsFolder), which
// the router (internal/backend) then writes to the vault folder.
package obsidiancli

import (
	"bytes"
	"context"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// DefaultTimeout bounds one CLI call unless configured otherwise.
const DefaultTimeout = 30 * time.Second

// maxOutput bounds what is kept of a CLI's stdout or stderr. Notes of tens of
// megabytes exist; beyond this the call fails rather than exhausting memory.
const maxOutput = 256 << 20

// waitDelay bounds how long Run waits for the CLI's output pipes to close
// after the process has exited or been killed, when a grandchild still holds
// them (go.dev/issue/23019, go.dev/issue/59541).
const waitDelay = 500 * time.Millisecond

// Client runs CLI commands. The zero value is not usable; set at least Logger.
type Client struct {
	// Bin is the CLI's path, or a name looked up on PATH; "" means search
	// PATH and Obsidian's install locations (Finder.Find).
	Bin string
	// Finder finds the CLI; the zero value looks at this machine.
	Finder Finder
	// Vault, when set, is sent as vault=<name> before every command.
	Vault string
	// Timeout bounds each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// CommandTimeouts overrides Timeout per command (e.g. "move": 2m).
	CommandTimeouts map[string]time.Duration
	// Env is the CLI's environment; nil inherits ours.
	Env []string
	// RetryDelay is the pause before the single cold-start retry.
	RetryDelay time.Duration
	Logger     *slog.Logger

	mu   sync.Mutex
	path string // resolved Bin, once found
}

// Run runs `obsidian [vault=V] command args...` and returns its stdout with
// noise lines removed, or a typed error.
func (c *Client) Run(ctx context.Context, command string, args ...string) (string, error) {
	return c.run(ctx, command, args, false)
}

// RunData is Run for commands whose stdout is note content (read): leading
// blank lines are kept and only exact CLI error shapes count as errors.
func (c *Client) RunData(ctx context.Context, command string, args ...string) (string, error) {
	return c.run(ctx, command, args, true)
}

func (c *Client) run(ctx context.Context, command string, args []string, data bool) (string, error) {
	bin, err := c.resolve()
	if err != nil {
		return "", err
	}
	argv := make([]string, 0, len(args)+2)
	if c.Vault != "" {
		// The CLI only honours vault= as the first argument (docs/cli.md §5).
		argv = append(argv, "vault="+c.Vault)
	}
	argv = append(argv, command)
	argv = append(argv, args...)
	res := c.exec(ctx, bin, command, argv, data)
	if res.coldStart {
		c.Logger.Debug("obsidian command not registered yet, retrying once", "command", command)
		select {
		case <-ctx.Done():
			return "", errors.From(ctx.Err())
		case <-time.After(c.RetryDelay):
		}
		res = c.exec(ctx, bin, command, argv, data)
	}
	if res.err != nil {
		return "", res.err
	}
	return res.out, nil
}

func (c *Client) timeout(command string) time.Duration {
	if d, ok := c.CommandTimeouts[command]; ok && d > 0 {
		return d
	}
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Client) exec(ctx context.Context, bin, command string, argv []string, data bool) outcome {
	timeout := c.timeout(command)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(cctx, bin, argv...)
	cmd.Env = c.Env
	stdout := &cappedBuffer{limit: maxOutput}
	stderr := &cappedBuffer{limit: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	configureProcessGroup(cmd)

	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	exitCode := cmd.ProcessState.ExitCode()
	c.Logger.Debug("obsidian cli", "argv", redact(argv), "duration", elapsed, "exit_code", exitCode,
		"stdout_bytes", stdout.total, "stderr_bytes", stderr.total, "err", err)

	if err != nil && cctx.Err() != nil {
		if ctx.Err() != nil {
			return outcome{err: errors.E(errors.Cancelled, "obsidian %s was cancelled; its process was stopped", command).WithCause(ctx.Err())}
		}
		return outcome{err: errors.E(errors.Timeout, "obsidian %s did not answer within %v; its process group was stopped", command, timeout).
			WithCause(context.DeadlineExceeded).
			WithHint("Make sure Obsidian is open and responsive (no modal dialog; on macOS, App Nap can freeze it in the background), then retry. Raise --timeout (OBSIDIAN_MCP_TIMEOUT) for slow vaults.")}
	}
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return outcome{err: notStartable(bin, err)}
		}
	}
	if sig := signalName(cmd.ProcessState); sig != "" {
		// Not our timeout or cancellation (handled above): the CLI crashed
		// or the system stopped it, maybe halfway through its answer.
		return outcome{err: errors.E(errors.CLIError, "obsidian %s was killed by signal %s before it finished; its partial output was discarded", command, sig).
			WithHint("The Obsidian CLI crashed or was stopped by the system. Whether a write took effect is unknown: check the note (read or file_info) before retrying. If it recurs, run `obsidian-mcp doctor`.").
			With("signal", sig)}
	}
	if stdout.overflow {
		return outcome{err: errors.E(errors.CLIError, "obsidian %s printed more than %d MiB; the answer was discarded", command, maxOutput>>20)}
	}
	// ErrWaitDelay alone means the CLI exited 0 but something it started still
	// held the pipes: its answer is complete, so it counts as success.
	return classify(command, exitCode, stdout.String(), stderr.String(), data)
}

// resolve finds the executable once; a failure is not cached, so installing
// or enabling the CLI while the server runs fixes the next call.
func (c *Client) resolve() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path != "" {
		return c.path, nil
	}
	found, _, err := c.Finder.Find(c.Bin) // err names every place tried
	if err != nil {
		return "", notFound(c.Bin, err)
	}
	p := found.Path
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	c.Logger.Debug("obsidian cli found", "path", p, "how", found.How)
	c.path = p
	return p, nil
}

func notFound(bin string, err error) *errors.Error {
	if bin != "" {
		return notStartable(bin, err)
	}
	return errors.E(errors.CLINotFound, "cannot find the Obsidian CLI: %v", err).WithCause(err).
		WithHint("Install Obsidian 1.12 or later and enable Settings → General → Command line interface, or set --obsidian-bin (OBSIDIAN_BIN) to the CLI's full path. `obsidian-mcp doctor` shows where it looked.")
}

func notStartable(bin string, err error) *errors.Error {
	return errors.E(errors.CLINotFound, "cannot run the Obsidian CLI %q: %v", bin, err).WithCause(err).
		WithHint("Install Obsidian 1.12 or later and enable Settings → General → Command line interface, or set --obsidian-bin (OBSIDIAN_BIN) to the CLI's full path (on Windows Obsidian.com, not Obsidian.exe).")
}

// redact shortens content= values so note bodies never reach the logs.
func redact(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, "content="); ok {
			a = "content=<" + strconv.Itoa(len(v)) + " bytes>"
		}
		out[i] = a
	}
	return out
}

// cappedBuffer keeps at most limit bytes and swallows the rest, so a CLI that
// prints without end never blocks on a full pipe nor exhausts memory.
type cappedBuffer struct {
	bytes.Buffer
	limit    int
	total    int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := b.limit - b.Buffer.Len(); room < len(p) {
		b.overflow = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
