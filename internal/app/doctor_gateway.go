package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// nsWords puts the namespace's YAML keys for the stdio server's settings
// in the words of doctor's vault checks, which are written for the
// command line (the settings themselves are read with the YAML keys:
// namespaceConfig).
var nsWords = strings.NewReplacer(
	"OBSIDIAN_VAULT_PATH (--vault-path)", "vault_path", "OBSIDIAN_VAULT (--vault)", "vault",
	"OBSIDIAN_VAULT_PATH", "vault_path", "OBSIDIAN_VAULT", "vault",
	"OBSIDIAN_BIN (--obsidian-bin)", "OBSIDIAN_BIN in the gateway's environment",
	" (see --help)", "", " or OBSIDIAN_VAULT_PATH", "", "--vault-path", "vault_path", "--vault", "vault", "--backend", "backend",
	"--read-only", "read_only", "--read-paths", "read_paths", "--write-paths", "write_paths", "--deny-paths", "deny_paths",
)

// vaultNamespaceCheck checks a vault namespace as doctor checks the
// stdio server's settings (gateway.VaultCheck), in the namespace's words.
func vaultNamespaceCheck(getenv func(string) string, m vaultserver.Machine) gateway.VaultCheck {
	return func(ctx context.Context, n gateway.Namespace, r *doctor.Report) bool {
		var out bytes.Buffer
		ok := checkVaultNamespace(ctx, n, getenv, &doctor.Report{Out: &out, Executable: m.Executable}, m)
		// The checks speak of the stdio server's settings; here they are
		// the namespace's keys.
		fmt.Fprint(r.Out, nsWords.Replace(out.String()))
		return ok
	}
}

func checkVaultNamespace(ctx context.Context, n gateway.Namespace, getenv func(string) string, r *doctor.Report, m vaultserver.Machine) bool {
	cfg, err := namespaceConfig(n, getenv)
	if err != nil {
		r.Fail("settings: "+err.Error(), "correct namespace "+n.Name+"'s keys")
		return false
	}
	mode := ""
	if cfg.ReadOnly {
		mode = ", read-only"
	}
	r.OK("settings are valid (backend %s%s)", cfg.Backend, mode)
	ready, how := vaultserver.Check(ctx, cfg, r, m)
	if !ready {
		r.Fail("not ready: this namespace could not serve tools", "fix the ✗ lines above")
		return false
	}
	r.OK("ready: %s", how)
	return true
}
