package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	doctorpkg "github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
)

// probeCommandTimeout bounds doctor's start of a command namespace's
// server: npx may fetch a package first.
const probeCommandTimeout = 60 * time.Second

// gateway is `obsidian-mcp doctor --gateway [gateway.yaml]`: the file, the
// listeners, and each namespace as the gateway would serve it (a vault
// checked as the stdio server's doctor checks it; a command found and
// started once).
func (d *doctor) gateway(ctx context.Context, args []string, getenv func(string) string, version string) int {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = append([]string{"--config", args[0]}, args[1:]...)
	}
	c, err := ParseGatewayConfig(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(d.Out, "Usage: obsidian-mcp doctor --gateway [gateway.yaml | flags]\n\nChecks what obsidian-mcp gateway would serve with this file: its listeners, and each namespace (a vault as `obsidian-mcp doctor` checks one; a command is started once and asked for its tools).\n\n"+GatewayUsage())
		return 0
	}
	d.ok("obsidian-mcp %s gateway", resolveVersion(version))
	for _, note := range c.Ignored {
		d.skip("ignored %s", note)
	}
	if err != nil {
		d.fail(err.Error(), "correct the setting (obsidian-mcp gateway --help lists them)")
		return 1
	}
	data, err := os.ReadFile(c.File)
	if err != nil {
		d.fail("the gateway's configuration cannot be read: "+err.Error(), "give the file as `obsidian-mcp doctor --gateway FILE`, with --config or OBSIDIAN_MCP_GATEWAY_CONFIG; `obsidian-mcp gateway --help` shows one")
		return 1
	}
	cfg, err := gateway.Parse(c.File, data)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			d.fail(line, "correct that line of "+c.File+"; `obsidian-mcp gateway --help` shows a complete file")
		}
		return 1
	}
	names := make([]string, len(cfg.Namespaces))
	for i, n := range cfg.Namespaces {
		names[i] = n.Name
	}
	d.ok("%s: %s (%s)", c.File, plural(len(names), "namespace"), strings.Join(names, ", "))
	d.listener("API", "listen", c.File, cfg.Listen, "/mcp/{namespace}")
	d.listener("debug dashboard", "debug_listen", c.File, cfg.DebugListen, "/debug")
	d.gatewayAccess(cfg)

	var failed []string
	for _, n := range cfg.Namespaces {
		kind := "vault"
		if !n.IsVault() {
			kind = "command"
		}
		fmt.Fprintf(d.Out, "namespace %s (%s, line %d of %s):\n", n.Name, kind, n.Line, c.File)
		var out bytes.Buffer
		sub := &doctor{Report: &doctorpkg.Report{Out: &out, Executable: d.m.Executable}, m: d.m}
		var ok bool
		if n.IsVault() {
			ok = sub.vaultNamespace(ctx, n, getenv)
		} else {
			ok = sub.commandNamespace(ctx, n, version)
		}
		// The vault checks speak of the stdio server's settings; here they
		// are the namespace's keys.
		text := yamlNames.Replace(nsWords.Replace(out.String()))
		for _, line := range strings.SplitAfter(text, "\n") {
			if line != "" {
				fmt.Fprint(d.Out, "    "+line)
			}
		}
		if !ok {
			failed = append(failed, n.Name)
		}
	}
	if len(failed) > 0 {
		d.fail(fmt.Sprintf("not ready: %s could not serve (%s)", plural(len(failed), "namespace"), strings.Join(failed, ", ")),
			"fix the ✗ lines above, then run obsidian-mcp doctor --gateway again")
		return 1
	}
	d.ok("ready: the gateway would serve %s at /mcp/{namespace}", plural(len(names), "namespace"))
	return 0
}

// nsWords puts the namespace's YAML keys for the stdio server's variables
// in the vault checks' words (yamlNames does its flags).
var nsWords = strings.NewReplacer(
	"OBSIDIAN_VAULT_PATH (--vault-path)", "vault_path", "OBSIDIAN_VAULT (--vault)", "vault",
	"OBSIDIAN_VAULT_PATH", "vault_path", "OBSIDIAN_VAULT", "vault",
	"OBSIDIAN_BIN (--obsidian-bin)", "OBSIDIAN_BIN in the gateway's environment",
)

// listener reports whether the gateway could listen on addr.
func (d *doctor) listener(what, key, file, addr, path string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// Not a failure: it may be the gateway itself.
		d.skip("%s: %s is taken (%v): if the gateway is not what runs there, choose a free address with %s in %s", what, addr, err, key, file)
		return
	}
	url := strings.TrimSuffix(reachableURL(ln.Addr()), "/mcp") + path
	_ = ln.Close()
	if strings.HasSuffix(addr, ":0") {
		d.ok("%s: would listen on a free port the system picks (%s), such as %s", what, addr, url)
		return
	}
	d.ok("%s: would listen on %s", what, url)
}

// gatewayAccess says who may reach the gateway.
func (d *doctor) gatewayAccess(cfg *gateway.Config) {
	web := browserReach(cfg.AllowedOrigins, "allowed_origins: ['*']")
	l := cfg.Limits
	summary := fmt.Sprintf("Host %s; %s; requests up to %s, answers up to %s, %s at once",
		strings.Join(cfg.AllowedHosts, " or "), web, gateway.SizeWord(l.MaxRequest), gateway.SizeWord(l.MaxResponse), plural(l.MaxConnections, "stream"))
	if !loopbackHost(cfg.Listen) {
		// The gateway serves so, with a warning; so does doctor.
		d.skip("access: warning: the API listens beyond this machine (%s) and asks no key, so anyone who can reach it can use every namespace; listen on 127.0.0.1 unless a firewall or an authenticating proxy stands in front. %s", cfg.Listen, summary)
		return
	}
	d.ok("access: %s", summary)
}

// vaultNamespace checks a vault namespace as doctor checks the stdio
// server's settings.
func (d *doctor) vaultNamespace(ctx context.Context, n gateway.Namespace, getenv func(string) string) bool {
	cfg, err := namespaceConfig(n, getenv)
	if err != nil {
		d.fail("settings: "+err.Error(), "correct namespace "+n.Name+"'s keys")
		return false
	}
	mode := ""
	if cfg.ReadOnly {
		mode = ", read-only"
	}
	d.ok("settings are valid (backend %s%s)", cfg.Backend, mode)
	r := d.server(ctx, cfg, true)
	if !r.ready {
		d.fail("not ready: this namespace could not serve tools", "fix the ✗ lines above")
		return false
	}
	d.ok("ready: %s", r.how)
	return true
}

// commandNamespace finds a command namespace's program and folder, and
// starts it once, as the gateway would on the first request.
func (d *doctor) commandNamespace(ctx context.Context, n gateway.Namespace, version string) bool {
	exe, err := n.Executable()
	if err != nil {
		fix := "install it, or give its full path in command (the gateway finds bare names on its own PATH)"
		if strings.ContainsAny(n.Command, `/\`) {
			fix = "correct command (a relative path is taken from cwd)"
		}
		d.fail(fmt.Sprintf("command %q cannot be run: %v", n.Command, err), fix)
		return false
	}
	d.ok("command: %s", exe)
	if dir := n.Dir(); dir != "" {
		if !isDir(dir) {
			d.fail("cwd "+dir+" is not a folder", "create it, or correct cwd")
			return false
		}
		d.ok("cwd: %s", dir)
	}
	ctx, cancel := context.WithTimeout(ctx, probeCommandTimeout)
	defer cancel()
	p, err := gateway.Probe(ctx, n, version, slog.New(slog.DiscardHandler))
	if err != nil {
		line := shellQuote(append([]string{n.Command}, n.Args...))
		if n.Cwd != "" {
			line = "cd " + shellQuote([]string{n.Dir()}) + " && " + line
		}
		d.fail("the server does not start and answer: "+err.Error(), "run `"+line+"` in a terminal to see what it says")
		return false
	}
	d.ok("started once: %s %s (protocol %s) answered with %s in %s, pid %d; stopped again",
		orDefault(p.Server, "(no name)"), p.Version, orDefault(p.Protocol, "?"), plural(p.Tools, "tool"), p.Took.Round(time.Millisecond), p.PID)
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
