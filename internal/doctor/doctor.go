// Package doctor is how every `obsidian-mcp doctor` check speaks: one line
// per check, ✓ when it passed, ✗ with the fix when it failed (a run that
// ends ready has none), ! with the fix for what works but less well than
// it could, – for what was skipped or only noted, and a Claude Desktop
// entry to paste once the setup is ready. Each
// face's doctor (the server's, the bridge's, the gateway's) lives beside
// the face and reports through a Report.
package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Report writes checks to Out. Executable is this program's path, for the
// entries it prints ("" prints obsidian-mcp).
type Report struct {
	Out        io.Writer
	Executable string
}

// OK reports a check that passed.
func (r *Report) OK(format string, args ...any) {
	fmt.Fprintf(r.Out, "✓ "+format+"\n", args...)
}

// Fail reports a check that failed, and its fix.
func (r *Report) Fail(what, fix string) {
	fmt.Fprintf(r.Out, "✗ %s\n    fix: %s\n", what, fix)
}

// Warn reports a check whose failure does not stop the setup from working
// (the app closed while the vault folder serves), and its fix.
func (r *Report) Warn(what, fix string) {
	fmt.Fprintf(r.Out, "! %s\n    fix: %s\n", what, fix)
}

// Skip reports what was skipped or only noted.
func (r *Report) Skip(format string, args ...any) {
	fmt.Fprintf(r.Out, "– "+format+"\n", args...)
}

// ClaudeEntry is a claude_desktop_config.json entry running this program
// with args and env.
func (r *Report) ClaudeEntry(args []string, env map[string]string) string {
	type server struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	command := r.Executable
	if command == "" {
		command = "obsidian-mcp"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	// Maps and slices of strings always encode.
	_ = enc.Encode(map[string]any{"mcpServers": map[string]server{"obsidian": {command, args, env}}})
	return strings.TrimSuffix(b.String(), "\n")
}

// Plural is n and noun, with an s unless n is 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
