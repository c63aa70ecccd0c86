package app

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge"
	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
	"github.com/obsidian-mcp/obsidian-mcp/internal/serve"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// Doctor is `obsidian-mcp doctor`: it checks that the server (or, with
// --bridge, the bridge; with --gateway, the gateway) can work with these
// settings on this machine, and prints how to fix what is wrong. It
// returns 0 when the command checked could serve, 1 when it could not.
func Doctor(ctx context.Context, args []string, getenv func(string) string, out io.Writer, version string, m vaultserver.Machine) int {
	version = resolveVersion(version)
	r := &doctor.Report{Out: out, Executable: m.Executable}
	if len(args) > 0 && (args[0] == "--bridge" || args[0] == "-bridge") {
		return bridge.Doctor(ctx, args[1:], getenv, r, version)
	}
	if len(args) > 0 && (args[0] == "--gateway" || args[0] == "-gateway") {
		return gateway.Doctor(ctx, args[1:], getenv, r, version, vaultNamespaceCheck(getenv, m))
	}
	// Doctor takes serve's settings too, to check them.
	cfg, err := serve.ParseConfig(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(out, doctorUsage)
		return 0
	}
	return vaultserver.Doctor(ctx, cfg.Config, err, r, version, m, serve.Doctor(cfg.HTTP))
}

// doctorUsage is doctor's own help: what it checks and how to point it,
// not the server's every flag again (it printed serve's whole help).
const doctorUsage = `Usage: obsidian-mcp doctor [flags]                   check the stdio server (and serve) with these settings
       obsidian-mcp doctor --bridge [bridge flags]    check the bridge
       obsidian-mcp doctor --gateway [gateway.yaml]   check the gateway and each namespace of its file

Checks the setup that the same flags and environment would give the server (or
the bridge, or the gateway), and prints how to fix what is wrong. Exits 0 when
it could serve, 1 when it could not.

Flags: the server's and serve's, with the same meanings and environment
variables (obsidian-mcp --help, obsidian-mcp serve --help). The ones that
decide most of what doctor finds:
  --backend auto|cli|native     which backend to check (default auto)
  --vault-path DIR              the vault folder (the one holding .obsidian/)
  --obsidian-bin PATH           the Obsidian CLI, when it is not on PATH
  --vault NAME                  the vault as Obsidian names it
  --listen ADDR, --api-key-file FILE
                                check serve's HTTP settings too
  --help                        print this help
`
