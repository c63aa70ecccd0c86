package gateway

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// probeCommandTimeout bounds doctor's start of a command namespace's
// server: npx may fetch a package first.
const probeCommandTimeout = 60 * time.Second

// VaultCheck checks a vault namespace as the server's doctor checks its
// settings, reporting to r in the namespace's words; ok when it could
// serve.
type VaultCheck func(ctx context.Context, n Namespace, r *doctor.Report) (ok bool)

// Doctor is `obsidian-mcp doctor --gateway [gateway.yaml]`: the file, the
// listeners, and each namespace as the gateway would serve it (a vault
// checked by vault; a command found and started once), reported to r. It
// returns 0 when every namespace could serve, 1 when one could not.
// The oauth: block, when the file has one, is checked too (the built-in
// server's store, or the issuer's metadata).
func Doctor(ctx context.Context, args []string, getenv func(string) string, r *doctor.Report, version string, vault VaultCheck) int {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = append([]string{"--config", args[0]}, args[1:]...)
	}
	c, err := ParseCommand(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(r.Out, "Usage: obsidian-mcp doctor --gateway [gateway.yaml | flags]\n\nChecks what obsidian-mcp gateway would serve with this file: its listeners, and each namespace (a vault as `obsidian-mcp doctor` checks one; a command is started once and asked for its tools).\n\n"+Usage())
		return 0
	}
	r.OK("obsidian-mcp %s gateway", version)
	for _, note := range c.Ignored {
		r.Skip("ignored %s", note)
	}
	if err != nil {
		r.Fail(err.Error(), "correct the setting (obsidian-mcp gateway --help lists them)")
		return 1
	}
	data, err := os.ReadFile(c.File)
	if err != nil {
		r.Fail("the gateway's configuration cannot be read: "+err.Error(), "give the file as `obsidian-mcp doctor --gateway FILE`, with --config or OBSIDIAN_MCP_GATEWAY_CONFIG; `obsidian-mcp gateway --help` shows one")
		return 1
	}
	cfg, err := Parse(c.File, data)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			r.Fail(line, "correct that line of "+c.File+"; `obsidian-mcp gateway --help` shows a complete file")
		}
		return 1
	}
	names := make([]string, len(cfg.Namespaces))
	for i, n := range cfg.Namespaces {
		names[i] = n.Name
	}
	r.OK("%s: %s (%s)", c.File, doctor.Plural(len(names), "namespace"), strings.Join(names, ", "))
	listener(r, "API", "listen", c.File, cfg.Listen, "/mcp/{namespace}")
	listener(r, "debug dashboard", "debug_listen", c.File, cfg.DebugListen, "/debug")
	wouldNotStart := !accessReport(r, cfg, c.Key)
	if cfg.OAuth.On() && !oauthDoctor(ctx, cfg.OAuth, r) {
		wouldNotStart = true
	}

	var failed []string
	for _, n := range cfg.Namespaces {
		kind := "vault"
		if !n.IsVault() {
			kind = "command"
		}
		fmt.Fprintf(r.Out, "namespace %s (%s, line %d of %s):\n", n.Name, kind, n.Line, c.File)
		var out bytes.Buffer
		sub := &doctor.Report{Out: &out, Executable: r.Executable}
		var ok bool
		if n.IsVault() {
			ok = vault(ctx, n, sub)
		} else {
			ok = commandNamespace(ctx, sub, n, version)
		}
		for _, line := range strings.SplitAfter(out.String(), "\n") {
			if line != "" {
				fmt.Fprint(r.Out, "    "+line)
			}
		}
		if !ok {
			failed = append(failed, n.Name)
		}
	}
	if wouldNotStart {
		r.Fail("not ready: the gateway would not start, for what the ✗ access or oauth line above says", "do as it says, then run obsidian-mcp doctor --gateway again")
		return 1
	}
	if len(failed) > 0 {
		r.Fail(fmt.Sprintf("not ready: %s could not serve (%s)", doctor.Plural(len(failed), "namespace"), strings.Join(failed, ", ")),
			"fix the ✗ lines above, then run obsidian-mcp doctor --gateway again")
		return 1
	}
	r.OK("ready: the gateway would serve %s at /mcp/{namespace}", doctor.Plural(len(names), "namespace"))
	return 0
}

// listener reports whether the gateway could listen on addr.
func listener(r *doctor.Report, what, key, file, addr, path string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// Not a failure: it may be the gateway itself.
		r.Skip("%s: %s is taken (%v): if the gateway is not what runs there, choose a free address with %s in %s", what, addr, err, key, file)
		return
	}
	url := strings.TrimSuffix(httpapi.ReachableURL(ln.Addr()), "/mcp") + path
	_ = ln.Close()
	if strings.HasSuffix(addr, ":0") {
		r.OK("%s: would listen on a free port the system picks (%s), such as %s", what, addr, url)
		return
	}
	r.OK("%s: would listen on %s", what, url)
}

// accessReport says who may reach the gateway, and fails for a listener
// beyond this machine without a key, which the gateway refuses to start.
func accessReport(r *doctor.Report, cfg *Config, key httpapi.Key) bool {
	web := httpapi.BrowserReach(cfg.AllowedOrigins, "allowed_origins: ['*']")
	l := cfg.Limits
	who := "no API key, so loopback only"
	if key.Set() {
		who = "every request must carry the API key"
		if !httpapi.Loopback(cfg.Listen) || !httpapi.Loopback(cfg.DebugListen) {
			who = "reachable from the network; " + who
		}
	}
	if cfg.OAuth.On() {
		who = "the namespaces take OAuth access tokens (over HTTPS from other machines)"
		if key.Set() {
			who += " or the API key"
		}
		if !httpapi.Loopback(cfg.Listen) {
			who = "reachable from the network; " + who
		}
	}
	summary := fmt.Sprintf("%s; Host %s; %s; requests up to %s, answers up to %s, %s at once",
		who, strings.Join(cfg.AllowedHosts, " or "), web, SizeWord(l.MaxRequest), SizeWord(l.MaxResponse), doctor.Plural(l.MaxConnections, "stream"))
	if err := CheckExposure(cfg, key); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			what, fix, _ := strings.Cut(line, ". ")
			if fix != "" {
				fix = strings.ToLower(fix[:1]) + fix[1:]
			}
			r.Fail("access: "+what, fix)
		}
		return false
	}
	r.OK("access: %s", summary)
	return true
}

// commandNamespace finds a command namespace's program and folder, and
// starts it once, as the gateway would on the first request.
func commandNamespace(ctx context.Context, r *doctor.Report, n Namespace, version string) bool {
	exe, err := n.Executable()
	if err != nil {
		fix := "install it, or give its full path in command (the gateway finds bare names on its own PATH)"
		if strings.ContainsAny(n.Command, `/\`) {
			fix = "correct command (a relative path is taken from cwd)"
		}
		r.Fail(fmt.Sprintf("command %q cannot be run: %v", n.Command, err), fix)
		return false
	}
	r.OK("command: %s", exe)
	if dir := n.Dir(); dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			r.Fail("cwd "+dir+" is not a folder", "create it, or correct cwd")
			return false
		}
		r.OK("cwd: %s", dir)
	}
	ctx, cancel := context.WithTimeout(ctx, probeCommandTimeout)
	defer cancel()
	p, err := Probe(ctx, n, version, slog.New(slog.DiscardHandler))
	if err != nil {
		line := shellQuote(append([]string{n.Command}, n.Args...))
		if n.Cwd != "" {
			line = "cd " + shellQuote([]string{n.Dir()}) + " && " + line
		}
		r.Fail("the server does not start and answer: "+err.Error(), "run `"+line+"` in a terminal to see what it says")
		return false
	}
	r.OK("started once: %s %s (protocol %s) answered with %s in %s, pid %d; stopped again",
		cmp.Or(p.Server, "(no name)"), p.Version, cmp.Or(p.Protocol, "?"), doctor.Plural(p.Tools, "tool"), p.Took.Round(time.Millisecond), p.PID)
	return true
}

// shellQuote words argv for a POSIX shell, for a fix to paste.
func shellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
