package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// VaultInfo names one vault of a server of several.
type VaultInfo struct {
	Name    string `json:"name" jsonschema:"the name to pass as vault"`
	Path    string `json:"path" jsonschema:"its folder on this machine"`
	Default bool   `json:"default,omitempty" jsonschema:"true for the vault used when vault is left out"`
}

// Several is the tools of several vaults as one set: every tool of the
// first set, with a vault argument naming the vault it works on (default
// the first), and obsidian_list_vaults. sets[i] are the tools of
// vaults[i], built alike; each keeps its own backend, policy and index.
func Several(vaults []VaultInfo, sets [][]server.ServerTool) []server.ServerTool {
	names := make([]string, len(vaults))
	for i, v := range vaults {
		names[i] = v.Name
	}
	var out []server.ServerTool
	for _, st := range sets[0] {
		handlers := make([]server.ToolHandlerFunc, len(sets))
		for i, set := range sets {
			for _, other := range set {
				if other.Tool.Name == st.Tool.Name {
					handlers[i] = other.Handler
				}
			}
		}
		t := st.Tool
		t.RawInputSchema = withVault(t.RawInputSchema, names)
		out = append(out, server.ServerTool{Tool: t, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			i, req, err := pickVault(names, req)
			if err != nil {
				return nil, err
			}
			if handlers[i] == nil {
				return nil, errors.E(errors.Unsupported, "%s is not served for the vault %s", req.Params.Name, names[i])
			}
			return handlers[i](ctx, req)
		}})
	}
	return append(out, listVaults(vaults).build(Vault{}, newValidator()))
}

// withVault adds the vault argument to an input schema.
func withVault(raw json.RawMessage, names []string) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	props["vault"] = map[string]any{"type": "string", "enum": names, "description": "The vault (obsidian_list_vaults); default " + names[0] + "."}
	out, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return out
}

// pickVault finds the vault a call names and takes its argument out, so
// that the vault's own tool sees the arguments it knows. The arguments are
// scanned and the vault's member cut out of their bytes, not decoded: the
// tool's bind is their one decode (besides mcp-go's, docs/mcp-go.md §3).
func pickVault(names []string, req mcp.CallToolRequest) (int, mcp.CallToolRequest, error) {
	raw := []byte(req.Params.RawArguments)
	if len(raw) == 0 && req.Params.Arguments != nil {
		raw, _ = json.Marshal(req.Params.Arguments)
	}
	if !gjson.ValidBytes(raw) || !gjson.ParseBytes(raw).IsObject() {
		return 0, req, nil // the tool itself says what is wrong
	}
	v := gjson.GetBytes(raw, "vault")
	if !v.Exists() {
		return 0, req, nil
	}
	if v.Type != gjson.String {
		return 0, req, errors.InvalidFields(errors.Field{Field: "vault", Message: "must be a vault's name: one of " + strings.Join(names, ", ")})
	}
	i := -1
	for j, n := range names {
		if strings.EqualFold(n, v.Str) {
			i = j
		}
	}
	if i < 0 {
		return 0, req, errors.InvalidFields(errors.Field{Field: "vault", Message: "is no vault of this server: use one of " + strings.Join(names, ", ")})
	}
	rest, err := sjson.DeleteBytes(raw, "vault")
	if err != nil {
		return 0, req, errors.InvalidFields(errors.Field{Field: "arguments", Message: "must be a JSON object"})
	}
	req.Params.RawArguments, req.Params.Arguments = rest, nil
	return i, req, nil
}

type listVaultsArgs struct{}

type vaultList struct {
	Vaults []VaultInfo `json:"vaults"`
}

func listVaults(vaults []VaultInfo) spec[listVaultsArgs, vaultList] {
	return spec[listVaultsArgs, vaultList]{
		name:        "obsidian_list_vaults",
		title:       "List vaults",
		description: "List the vaults this server serves: pass a name as any tool's `vault` (default: the first).",
		hints:       hints{readOnly: true, idempotent: true},
		run: func(context.Context, Vault, listVaultsArgs) (vaultList, error) {
			return vaultList{Vaults: vaults}, nil
		},
	}
}
