package app

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge"
	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
	"github.com/obsidian-mcp/obsidian-mcp/internal/serve"
	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// The README's generated sections, keyed by marker name. Each is derived from
// the code it documents, and TestREADME fails when the README is stale.
func readmeSections() map[string]string {
	return map[string]string{
		"TOOLS":   toolsMarkdown(),
		"ERRORS":  errorsMarkdown(),
		"CONFIG":  configMarkdown(),
		"BRIDGE":  bridgeMarkdown(),
		"GATEWAY": settings.Table(gateway.Specs()),
	}
}

func toolsMarkdown() string {
	var b strings.Builder
	for _, st := range tools.All(tools.Vault{}) {
		t := st.Tool
		var hints []string
		a := t.Annotations
		// A hint left out is MCP's default: not read-only, destructive,
		// not idempotent.
		on := func(h *bool, def bool) bool { return h == nil && def || h != nil && *h }
		readOnly := on(a.ReadOnlyHint, false)
		if readOnly {
			hints = append(hints, "read-only")
		}
		if !readOnly && on(a.DestructiveHint, true) {
			hints = append(hints, "destructive")
		}
		if on(a.IdempotentHint, false) {
			hints = append(hints, "idempotent")
		}
		if len(hints) == 0 {
			hints = append(hints, "additive")
		}
		fmt.Fprintf(&b, "- **`%s`** — %s (%s)\n  %s\n", t.Name, t.Title, strings.Join(hints, ", "), t.Description)
		var schema struct {
			Properties map[string]struct {
				argType
				AnyOf       []argType `json:"anyOf"`
				Description string    `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(t.RawInputSchema, &schema); err != nil {
			panic(err) // the registry test proves every schema decodes
		}
		names := make([]string, 0, len(schema.Properties))
		for n := range schema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := schema.Properties[n]
			req := ""
			for _, r := range schema.Required {
				if r == n {
					req = ", required"
				}
			}
			typ := p.name()
			if len(p.AnyOf) > 0 {
				var alts []string
				for _, a := range p.AnyOf {
					alts = append(alts, a.name())
				}
				typ = strings.Join(alts[:len(alts)-1], ", ") + " or " + alts[len(alts)-1]
			}
			fmt.Fprintf(&b, "  - `%s` (%s%s): %s\n", n, typ, req, p.Description)
		}
	}
	return b.String()
}

// argType is an argument's type as its schema says it (schemas hold one
// type each, or anyOf branches of one type each: tools/schema.go).
type argType struct {
	Type  string `json:"type"`
	Items struct {
		Type string `json:"type"`
	} `json:"items"`
}

// name is the type as the README says it: "string", "array of string".
func (a argType) name() string {
	if a.Type == "array" {
		return "array of " + a.Items.Type
	}
	return a.Type
}

func errorsMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | `data.errorCode` | when | what to do |\n|---|---|---|---|\n")
	for _, k := range errors.Kinds() {
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s |\n", k.Code, k.Kind, k.When, k.Action)
	}
	return b.String()
}

func configMarkdown() string { return settings.Table(append(vaultserver.Specs(), serve.Specs()...)) }

func bridgeMarkdown() string { return settings.Table(bridge.Specs()) }

// replaceSection puts body between the START and END markers of name.
func replaceSection(doc, name, body string) (string, error) {
	start, end := "<!-- START AUTOMATED "+name+" -->\n", "<!-- END AUTOMATED "+name+" -->"
	i := strings.Index(doc, start)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("README lacks the %s markers", name)
	}
	return doc[:i+len(start)] + body + doc[j:], nil
}
