package bridge

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge/upstream"
	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
)

// Doctor is `obsidian-mcp doctor --bridge`: what the bridge with these
// settings can reach, and which transport it would use, reported to r.
// One attempt each, no back-off: doctor answers in seconds. It returns 0
// when the bridge would serve tools, 1 when it would not.
func Doctor(ctx context.Context, args []string, getenv func(string) string, r *doctor.Report, version string) int {
	c, err := ParseConfig(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(r.Out, "Usage: obsidian-mcp doctor --bridge [flags]\n\nChecks what obsidian-mcp bridge would reach with the same flags and environment.\n\n"+Usage())
		return 0
	}
	r.OK("obsidian-mcp %s bridge", version)
	for _, w := range c.Warnings {
		r.Skip("setting ignored: %s", w)
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			r.Fail(line, "correct the setting (obsidian-mcp bridge --help lists them)")
		}
		return 1
	}
	target := c.target()
	switch {
	case c.URLFile != "" && readURLFile(c.URLFile) != "":
		r.OK("the server's URL comes from --url-file %s: %s", c.URLFile, target)
	case c.URLFile != "":
		r.Skip("--url-file %s holds no URL yet (obsidian-mcp serve --url-file writes it); using %s", c.URLFile, target)
	default:
		r.OK("the server is looked for at %s", target)
	}
	up := newUpstreams(c, slog.New(slog.DiscardHandler), version)
	mcpURL, v1Base := endpoints(target)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// Each transport is asked on its own, whatever --transport says, so the
	// report says what is there.
	mcp, v1 := up.mcp, up.v1
	mcpTools, _, mcpErr := mcp.Tools(ctx)
	if mcpErr == nil {
		how := "session-less (no initialize), as the ObsiScripta plugin speaks it"
		if id, v := mcp.Session(); id != "" || v != "" {
			how = fmt.Sprintf("a session, protocol %s", v)
		}
		r.OK("MCP over HTTP at %s answers: %d tools; %s", mcpURL, len(mcpTools), how)
	} else {
		probeFailed(r, "MCP over HTTP at "+mcpURL, mcpErr, c.Transport)
	}
	v1Err := v1.Health(ctx)
	var v1Tools []upstream.Tool
	if v1Err == nil {
		v1Tools, _, v1Err = v1.Tools(ctx)
	}
	if v1Err == nil {
		r.OK("the Bridge Protocol v1 at %s/bridge/v1 answers: %d tools", v1Base, len(v1Tools))
	} else {
		probeFailed(r, "the Bridge Protocol v1 at "+v1Base+"/bridge/v1", v1Err, c.Transport)
	}
	used, n := "", 0
	switch {
	case c.Transport != TransportV1 && mcpErr == nil:
		used, n = TransportMCP, len(mcpTools)
	case c.Transport != TransportMCP && v1Err == nil:
		used, n = TransportV1, len(v1Tools)
	}
	sample(r, c)
	if used == "" {
		r.Fail(fmt.Sprintf("not ready: the bridge (--transport %s) would find no server", c.Transport),
			"start the server (Obsidian with the ObsiScripta Bridge plugin, or obsidian-mcp serve), check host and port, then run obsidian-mcp doctor --bridge again")
		return 1
	}
	r.OK("ready: the bridge would serve %d tools over %s (--transport %s)", n, map[string]string{TransportMCP: "MCP over HTTP", TransportV1: "the Bridge Protocol v1"}[used], c.Transport)
	return 0
}

// probeFailed reports a transport that does not answer: a failure when
// --transport names it, a note under auto, which needs only one.
func probeFailed(r *doctor.Report, what string, err error, transport string) {
	msg, fix := what+" does not answer: "+err.Error(), "start the server, or check --host/--port/--url and --transport"
	var he *upstream.HTTPError
	if errors.As(err, &he) && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden) {
		msg, fix = what+" refuses the bridge: "+he.Error(), KeyFix
	}
	if transport != TransportAuto {
		r.Fail(msg, fix)
		return
	}
	r.Skip("%s (%s); auto needs only one transport", msg, fix)
}

// sample prints a Claude Desktop entry for the bridge.
func sample(r *doctor.Report, c Config) {
	env := map[string]string{}
	for _, s := range c.Settings {
		if s.Source != "default" && s.Value != "" && s.Env != "OBSIDIAN_MCP_API_KEY" {
			env[s.Env] = s.Value
		}
	}
	if c.APIKey != "" {
		env["OBSIDIAN_MCP_API_KEY"] = "<your key>"
	}
	data := r.ClaudeEntry([]string{"bridge"}, env)
	fmt.Fprintf(r.Out, "\nClaude Desktop (claude_desktop_config.json):\n%s\n\n", data)
}
