package app

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
	"github.com/obsidian-mcp/obsidian-mcp/internal/serve"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// gatewayEnv are the environment variables a vault namespace takes from
// the gateway's environment: where the Obsidian CLI is and how long it may
// take, which are the machine's. Everything that picks a vault or limits
// one comes from the namespace alone, so that OBSIDIAN_VAULT_PATH, say,
// cannot leak into every namespace.
var gatewayEnv = map[string]bool{
	"OBSIDIAN_BIN": true, "OBSIDIAN_MCP_TIMEOUT": true, "OBSIDIAN_MCP_COMMAND_TIMEOUTS": true, "OBSIDIAN_MCP_TOOL_ERRORS": true,
}

// yamlKeys are the YAML keys of a vault namespace, by the server's flag.
var yamlKeys = map[string]string{"vault-path": "vault_path", "vault": "vault", "backend": "backend", "read-only": "read_only",
	"read-paths": "read_paths", "write-paths": "write_paths", "deny-paths": "deny_paths"}

// namespaceConfig is a vault namespace's settings, read and checked as the
// stdio server reads its own, named in errors by their YAML keys, with
// what the machine's environment may give.
func namespaceConfig(n gateway.Namespace, getenv func(string) string) (vaultserver.Config, error) {
	given := map[string]string{}
	add := func(flag, v string) {
		if v != "" {
			given[flag] = v
		}
	}
	add("vault-path", n.VaultPath)
	add("vault", n.Vault)
	backend := n.Backend
	if backend == "" && n.Vault == "" {
		// With only a folder, the app's CLI would act on whichever vault
		// is open in Obsidian, which may be another namespace's.
		backend = "native"
	}
	add("backend", backend)
	if n.ReadOnly {
		given["read-only"] = "true"
	}
	add("read-paths", strings.Join(n.ReadPaths, ","))
	add("write-paths", strings.Join(n.WritePaths, ","))
	add("deny-paths", strings.Join(n.DenyPaths, ","))
	env := func(k string) string {
		if gatewayEnv[k] {
			return getenv(k)
		}
		return ""
	}
	key := func(flag string) string { return cmp.Or(yamlKeys[flag], flag) }
	cfg, err := vaultserver.ConfigFrom(given, key, env)
	if err != nil {
		// One line: the gateway names the namespace before it.
		return cfg, errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return cfg, nil
}

// openVault serves a vault namespace in this process.
func openVault(getenv func(string) string, logger *slog.Logger, version string) func(gateway.Namespace) (*gateway.VaultServer, error) {
	return func(n gateway.Namespace) (*gateway.VaultServer, error) {
		cfg, err := namespaceConfig(n, getenv)
		if err != nil {
			return nil, err
		}
		log := logger.With("namespace", n.Name)
		cfg.IndexBuildHook = relaxGCForBuild
		st, err := vaultserver.Open(cfg, log)
		if err != nil {
			return nil, err
		}
		core := st.Core(version, vaultserver.CoreOptions{CallTimeout: st.CallBound})
		log.Info("vault namespace ready", st.LogAttrs(version)...)
		return &gateway.VaultServer{Core: core, Close: st.Close, Guard: st.Guard()}, nil
	}
}

// settingsError is a gateway that cannot start for what its file says.
type settingsError struct{ error }

func (e settingsError) Unwrap() error { return e.error }

// GatewayAddrs are where a running gateway listens.
type GatewayAddrs struct{ API, Debug net.Addr }

// RunGateway runs `obsidian-mcp gateway` until ctx ends (SIGINT/SIGTERM).
// ready, when set, learns the addresses once both listeners are open.
func RunGateway(ctx context.Context, c gateway.CommandConfig, getenv func(string) string, logger *slog.Logger, version string, ready func(GatewayAddrs)) error {
	data, err := os.ReadFile(c.File)
	if err != nil {
		return settingsError{fmt.Errorf("the gateway's configuration cannot be read: %w (give it with --config or OBSIDIAN_MCP_GATEWAY_CONFIG)", err)}
	}
	cfg, err := gateway.Parse(c.File, data)
	if err != nil {
		return settingsError{err}
	}
	if cfg.OAuth.BuiltIn {
		slog.SetDefault(logger) // as Main does for serve --oauth
	}
	if err := gateway.CheckExposure(cfg, c.Key); err != nil {
		return settingsError{fmt.Errorf("%s: %w", c.File, err)}
	}
	api, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s (listen): %w; choose another address with listen in %s, or stop what listens there", cfg.Listen, err, c.File)
	}
	debug, err := net.Listen("tcp", cfg.DebugListen)
	if err != nil {
		_ = api.Close()
		return fmt.Errorf("cannot listen on %s (debug_listen): %w; choose another address with debug_listen in %s, or stop what listens there", cfg.DebugListen, err, c.File)
	}
	opts, err := gateway.OAuthOptions(ctx, cfg, api.Addr(), debug.Addr(), logger)
	if err == nil && cfg.HTTPS() {
		var tc *tls.Config
		if tc, err = serve.TLS(cfg.TLSCert, cfg.TLSKey, cfg.ACME); err == nil {
			api = tls.NewListener(api, tc)
		}
	}
	if err != nil {
		_, _ = api.Close(), debug.Close()
		return settingsError{fmt.Errorf("%s: %w", c.File, err)}
	}
	opts.Version, opts.OpenVault, opts.Key = version, openVault(getenv, logger, version), c.Key
	g, err := gateway.New(cfg, opts)
	if err != nil {
		_, _ = api.Close(), debug.Close()
		return settingsError{fmt.Errorf("%s: %w", c.File, err)}
	}
	base := cfg.Base(api.Addr())
	logger.Info("obsidian-mcp gateway serving", "version", version, "api", base+"/mcp/{namespace}",
		"debug", strings.TrimSuffix(httpapi.ReachableURL(debug.Addr()), "/mcp")+"/debug", "namespaces", strings.Join(g.Namespaces(), ","), "api_key", c.Key.Set(), "oauth_issuer", cfg.OAuth.Issuer, "oauth_built_in", cfg.OAuth.BuiltIn)
	if ready != nil {
		ready(GatewayAddrs{API: api.Addr(), Debug: debug.Addr()})
	}
	if err := g.Serve(ctx, api, debug); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// mainGateway is Main for `obsidian-mcp gateway`.
func mainGateway(ctx context.Context, args []string, getenv func(string) string, std Streams, version string) int {
	c, err := gateway.ParseCommand(args, getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(std.Out, gateway.Usage())
		return 0
	case err != nil:
		return configError(std.Err, "obsidian-mcp gateway", err, "see `obsidian-mcp gateway --help`")
	case c.ShowVersion:
		fmt.Fprintf(std.Out, "obsidian-mcp %s\n", version)
		return 0
	}
	logger := NewLogger(std.Err, c.LogLevel)
	for _, note := range c.Ignored {
		logger.Warn("ignored " + note)
	}
	if err := RunGateway(ctx, c, getenv, logger, version, nil); err != nil {
		if errors.As(err, new(settingsError)) {
			return configError(std.Err, "obsidian-mcp gateway", err, "see `obsidian-mcp gateway --help` and the README's gateway section")
		}
		logger.Error("gateway stopped", "err", err)
		return 1
	}
	return 0
}
