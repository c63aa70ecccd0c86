package obsidiancli

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// The patterns compile on first use, not at process start: start-up is
// measured (docs/benchmarks.md), and native mode never classifies CLI output.

// Noise lines some installs print before the real answer (docs/cli.md §3).
var noiseRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} Loading updated app package|Your Obsidian installer is out of date)`)
})

var (
	fileNotFoundRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^File "(.*)" not found\.?$`) })
	commandRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Command "([^"]*)" not found`) })
	jsErrorRE      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(Uncaught )?(TypeError|ReferenceError|SyntaxError|RangeError|Error)\b[^:]*: `)
	})
)

// maxQuoted bounds how much CLI output an error message quotes.
const maxQuoted = 2000

// outcome is what one CLI run amounted to.
type outcome struct {
	out string // stdout without noise lines, on success
	err *errors.Error
	// coldStart is set when the app answered that our own command does not
	// exist: its command registry was not loaded yet and nothing ran, so one
	// retry is safe (docs/cli.md §4, "Cold start").
	coldStart bool
}

// classify reads a finished run. The CLI exits 0 for almost every outcome,
// with errors on stdout, so the content decides; only "app unreachable"
// uses exit 1 and stderr. data marks commands whose stdout is note content:
// there, only the exact shapes of CLI errors count as errors, so a note that
// happens to begin with "Error:" is not mistaken for one.
func classify(command string, exitCode int, stdout, stderr string, data bool) outcome {
	if exitCode != 0 {
		return outcome{err: exitFailure(command, exitCode, stdout, stderr)}
	}
	out := stripNoise(stdout, !data)
	first, _, _ := strings.Cut(out, "\n")
	first = strings.TrimSuffix(first, "\r")
	switch {
	case first == "Vault not found.":
		return outcome{err: errors.E(errors.VaultNotFound, "Obsidian has no vault by the configured name")}
	case strings.HasPrefix(first, "Error: "):
		msg := strings.TrimPrefix(first, "Error: ")
		if m := commandRE().FindStringSubmatch(msg); m != nil && m[1] == command {
			return outcome{coldStart: true, err: errors.E(errors.CLIError, "obsidian %s: %s", command, msg).
				WithHint("Obsidian answered that it does not know this command: the vault may still be loading (retry in a few seconds) or this Obsidian is older than 1.12.")}
		}
		if data && fileNotFoundRE().FindStringSubmatch(msg) == nil && !strings.HasPrefix(msg, "No active file") {
			return outcome{out: out}
		}
		return outcome{err: reported(command, msg, out)}
	case !data && jsErrorRE().MatchString(first):
		return outcome{err: errors.E(errors.CLIError, "obsidian %s failed inside Obsidian: %s", command, first).
			WithHint("Obsidian raised an internal error for these arguments; check the path and names, or retry after restarting Obsidian.")}
	}
	return outcome{out: out}
}

// reported maps an "Error: …" line to a kind.
func reported(command, msg, out string) *errors.Error {
	lower := strings.ToLower(msg)
	var e *errors.Error
	switch {
	case fileNotFoundRE().MatchString(msg):
		e = errors.E(errors.FileNotFound, "note not found: %s", fileNotFoundRE().FindStringSubmatch(msg)[1])
	case strings.HasPrefix(msg, "Destination file already exists"):
		e = errors.E(errors.FileExists, "the destination already exists; nothing was changed")
	case isPermission(lower):
		e = errors.E(errors.PermissionDenied, "obsidian %s: %s", command, msg)
	case strings.HasPrefix(msg, "File name cannot contain"):
		e = errors.E(errors.InvalidParams, "%s", msg)
	case strings.Contains(lower, "template"):
		e = errors.E(errors.CLIError, "obsidian %s: %s", command, msg).
			WithHint("Templates need the core Templates plugin enabled with a template folder set, and `template` must name a note in that folder.")
	default:
		e = errors.E(errors.CLIError, "obsidian %s: %s", command, msg)
	}
	if strings.Contains(out, "\n") && strings.TrimSpace(out) != strings.TrimSpace("Error: "+msg) {
		e.With("cli_output", quote(out))
	}
	return e
}

func exitFailure(command string, code int, stdout, stderr string) *errors.Error {
	text := strings.TrimSpace(stderr)
	if text == "" {
		text = strings.TrimSpace(stripNoise(stdout, true))
	}
	first, _, _ := strings.Cut(text, "\n")
	lower := strings.ToLower(text)
	switch {
	case strings.Contains(lower, "unable to find obsidian") || strings.Contains(lower, "make sure obsidian is running"):
		return errors.E(errors.NotRunning, "Obsidian is not running (the CLI could not reach the app)").
			WithHint("Start Obsidian and open the vault, then retry. On Linux without a desktop session, DISPLAY must be set for the CLI to find the app.").
			With("cli_output", quote(first))
	case isPermission(lower):
		return errors.E(errors.PermissionDenied, "obsidian %s: %s", command, first)
	}
	if first == "" {
		first = "no output"
	}
	return errors.E(errors.CLIError, "obsidian %s exited with status %d: %s", command, code, first).
		With("exit_code", code)
}

func isPermission(lower string) bool {
	return strings.Contains(lower, "permission denied") || strings.Contains(lower, "eacces") ||
		strings.Contains(lower, "eperm") || strings.Contains(lower, "operation not permitted")
}

// stripNoise removes the noise lines the CLI may print before its answer.
// blank also drops leading blank lines, which is right for messages but
// not for note content, whose leading blank lines are real.
func stripNoise(s string, blank bool) string {
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		line = strings.TrimSuffix(line, "\r")
		if !noiseRE().MatchString(line) && !(blank && strings.TrimSpace(line) == "") {
			break
		}
		s = rest
	}
	return s
}

func quote(s string) string {
	if len(s) > maxQuoted {
		return s[:maxQuoted] + fmt.Sprintf("… (%d more bytes)", len(s)-maxQuoted)
	}
	return s
}
