package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Toolsets group the tools by what a user may want to allow, as
// github-mcp-server's --toolsets do: a server given some serves those
// alone, so a client that needs only reading pays for no other tool's
// description in its context. Every tool is in exactly one, as its spec
// says (spec.toolset).
var Toolsets = []struct{ Name, About string }{
	{"read", "read notes and find them"},
	{"graph", "links, tags and properties across the vault"},
	{"edit", "change the text, properties and tags of existing notes"},
	{"files", "create, delete, move, rename and open notes"},
	{"daily", "the daily and periodic notes"},
	{"tasks", "the vault's tasks"},
	{"canvas", "read and change canvases"},
	{"bases", "query the vault's bases"},
	{"history", "what the tools changed in the vault, and undoing it"},
	{Commands, "the app's commands; served only with --commands"},
}

// ToolsetTools are the names of the tools in toolset name, in registry
// order.
func ToolsetTools(name string) []string {
	var out []string
	for _, e := range registry() {
		if f := e.facts(); f.toolset == name {
			out = append(out, f.name)
		}
	}
	return out
}

// Commands is the toolset served only when the user asks for it
// (--commands): a command may do anything in the app.
const Commands = "commands"

// WithoutCommands is list without the commands toolset.
func WithoutCommands(list []server.ServerTool) []server.ServerTool {
	names := ToolsetTools(Commands)
	return slices.DeleteFunc(slices.Clone(list), func(st server.ServerTool) bool { return slices.Contains(names, st.Tool.Name) })
}

// ToolsetNames are the toolsets' names, in order.
func ToolsetNames() []string {
	names := make([]string, len(Toolsets))
	for i, ts := range Toolsets {
		names[i] = ts.Name
	}
	return names
}

// CheckToolsets reports the first name that is no toolset ("all" is every
// one), saying which exist.
func CheckToolsets(names []string) error {
	for _, n := range names {
		if n != "all" && !slices.Contains(ToolsetNames(), n) {
			return fmt.Errorf("%q is no toolset: use all, or some of %s", n, strings.Join(ToolsetNames(), ", "))
		}
	}
	return nil
}

// Select keeps the tools of the toolsets named (all of them for none, or
// for "all"), in their order.
func Select(all []server.ServerTool, names []string) []server.ServerTool {
	if len(names) == 0 || slices.Contains(names, "all") {
		return all
	}
	var keep []string
	for _, ts := range Toolsets {
		if slices.Contains(names, ts.Name) {
			keep = append(keep, ToolsetTools(ts.Name)...)
		}
	}
	return slices.DeleteFunc(slices.Clone(all), func(st server.ServerTool) bool { return !slices.Contains(keep, st.Tool.Name) })
}

// WithoutOutputSchemas is list with no tool's output schema: each is
// optional in MCP, most clients never show one to the model, and together
// they would be a third of tools/list. Results keep their structured
// content.
func WithoutOutputSchemas(list []server.ServerTool) []server.ServerTool {
	out := make([]server.ServerTool, len(list))
	for i, st := range list {
		st.Tool.OutputSchema = mcp.ToolOutputSchema{}
		st.Tool.RawOutputSchema = nil
		out[i] = st
	}
	return out
}
