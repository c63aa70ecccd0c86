package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	doctorpkg "github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
)

// nsWords puts the namespace's YAML keys for the stdio server's variables
// in the vault checks' words (yamlNames does its flags).
var nsWords = strings.NewReplacer(
	"OBSIDIAN_VAULT_PATH (--vault-path)", "vault_path", "OBSIDIAN_VAULT (--vault)", "vault",
	"OBSIDIAN_VAULT_PATH", "vault_path", "OBSIDIAN_VAULT", "vault",
	"OBSIDIAN_BIN (--obsidian-bin)", "OBSIDIAN_BIN in the gateway's environment",
)

// vaultNamespace checks a vault namespace as doctor checks the stdio
// server's settings (gateway.VaultCheck), in the namespace's words.
func (d *doctor) vaultNamespace(getenv func(string) string) gateway.VaultCheck {
	return func(ctx context.Context, n gateway.Namespace, r *doctorpkg.Report) bool {
		var out bytes.Buffer
		sub := &doctor{Report: &doctorpkg.Report{Out: &out, Executable: d.m.Executable}, m: d.m}
		ok := sub.checkVaultNamespace(ctx, n, getenv)
		// The checks speak of the stdio server's settings; here they are
		// the namespace's keys.
		fmt.Fprint(r.Out, yamlNames.Replace(nsWords.Replace(out.String())))
		return ok
	}
}

func (d *doctor) checkVaultNamespace(ctx context.Context, n gateway.Namespace, getenv func(string) string) bool {
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
