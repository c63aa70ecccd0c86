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
// description in its context. Every tool is in exactly one.
var Toolsets = []struct {
	Name, About string
	Tools       []string
}{
	{"read", "read notes and find them", []string{"obsidian_read_note", "obsidian_read_notes", "obsidian_get_outline", "obsidian_get_properties",
		"obsidian_file_info", "obsidian_search_notes", "obsidian_list_files", "obsidian_read_attachment"}},
	{"graph", "links, tags and properties across the vault", []string{"obsidian_get_backlinks", "obsidian_get_links", "obsidian_list_orphans",
		"obsidian_list_unresolved_links", "obsidian_list_tags", "obsidian_list_tagged_notes", "obsidian_list_properties"}},
	{"edit", "change the text, properties and tags of existing notes", []string{"obsidian_append_to_note", "obsidian_prepend_to_note", "obsidian_patch_note",
		"obsidian_replace_in_note", "obsidian_set_property", "obsidian_remove_property", "obsidian_update_tags", "obsidian_rename_tag"}},
	{"files", "create, delete, move, rename and open notes", []string{"obsidian_create_note", "obsidian_delete_note", "obsidian_move_note",
		"obsidian_rename_note", "obsidian_open_note", "obsidian_list_templates"}},
	{"daily", "the daily and periodic notes", []string{"obsidian_daily_note"}},
	{"tasks", "the vault's tasks", []string{"obsidian_list_tasks", "obsidian_update_task"}},
	{"canvas", "read and change canvases", []string{"obsidian_read_canvas", "obsidian_edit_canvas"}},
	{"bases", "query the vault's bases", []string{"obsidian_query_base"}},
	{Commands, "the app's commands; served only with --commands", []string{"obsidian_list_commands", "obsidian_run_command"}},
}

// Commands is the toolset served only when the user asks for it
// (--commands): a command may do anything in the app.
const Commands = "commands"

// WithoutCommands is list without the commands toolset.
func WithoutCommands(list []server.ServerTool) []server.ServerTool {
	var names []string
	for _, ts := range Toolsets {
		if ts.Name == Commands {
			names = ts.Tools
		}
	}
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
			keep = append(keep, ts.Tools...)
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
