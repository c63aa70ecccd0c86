package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Envelope is the structured result of every tool but read: the seed
// contract {"success":true,"data":{...}}.
type Envelope[R any] struct {
	Success bool `json:"success" jsonschema:"always true; failures are JSON-RPC errors"`
	Data    R    `json:"data"`
}

// hints are a tool's annotations. They are set explicitly for every tool:
// mcp-go's defaults (destructive, open-world) would misdescribe most of ours.
type hints struct {
	readOnly, destructive, idempotent bool
}

// spec describes one tool, with every fact about it: what it is called
// and says, its hints, its toolset, whether it needs the user's
// confirmation, and its handler (A may add a rule across its fields:
// acrossFields). build turns it into a server.ServerTool; the registry's
// lists (toolsets, confirmations) are derived from the specs.
type spec[A, R any] struct {
	name, title, description string
	hints                    hints
	// toolset is the one toolset the tool belongs to (Toolsets).
	toolset string
	// confirm, when set, says whether a call with these arguments
	// deletes, overwrites, moves or renames: a transport that confirms
	// with the user in its own way holds such a call back
	// (NeedsConfirmation).
	confirm func(args map[string]any) bool
	run     func(ctx context.Context, v Vault, args A) (R, error)
	// raw makes R itself the structured content, with text as the text
	// block, instead of the envelope (whose text block is its data
	// rendered, see render).
	raw  bool
	text func(R) string
	// notice, when it returns text, adds it as a second text block: what
	// the model must know about a raw result besides its text (its
	// version, that it was cut short).
	notice func(R) string
	// media, when it returns content, adds it after the text: an image
	// the model sees, which the structured result does not repeat.
	media func(R) []mcp.Content
	// inputs are schemas of the tool's own for arguments the generator
	// cannot type (Go type any): every argument is typed (schema.go).
	inputs map[string]map[string]any
}

// entry is a tool of the registry, whatever its argument and result
// types.
type entry interface {
	build(vault Vault, v *validator.Validate) server.ServerTool
	facts() facts
}

// facts are what the registry's lists need of a tool.
type facts struct {
	name, toolset string
	confirm       func(args map[string]any) bool
	readOnly      bool
}

func (s spec[A, R]) facts() facts { return facts{s.name, s.toolset, s.confirm, s.hints.readOnly} }

// Writes reports whether the tool named may change the vault: every tool
// not annotated read-only, and any name this build does not know, so that
// a tool added later is refused to a read-only request unless it says it
// changes nothing. It is what a server's guard asks (auth.Guard.Writes).
func Writes(name string) bool {
	for _, e := range append(registry(), listVaults(nil)) {
		if f := e.facts(); f.name == name {
			return !f.readOnly
		}
	}
	return true
}

// always is the confirmation rule of a tool every call of which needs it.
func always(map[string]any) bool { return true }

// acrossFields is an argument type with a rule across its fields, which
// validate tags cannot say (exactly one of two, say); build registers it.
type acrossFields interface {
	checkAcross(sl validator.StructLevel)
}

func (s spec[A, R]) build(vault Vault, v *validator.Validate) server.ServerTool {
	var zero A
	if _, ok := any(zero).(acrossFields); ok {
		v.RegisterStructValidation(func(sl validator.StructLevel) {
			sl.Current().Interface().(acrossFields).checkAcross(sl)
		}, zero)
	}
	opts := []mcp.ToolOption{
		mcp.WithToolTitle(s.title),
		mcp.WithDescription(s.description),
		mcp.WithInputSchema[A](),
		mcp.WithToolAnnotation(s.hints.annotation()),
	}
	if s.raw {
		opts = append(opts, mcp.WithOutputSchema[R]())
	} else {
		opts = append(opts, mcp.WithOutputSchema[Envelope[R]]())
	}
	tool := mcp.NewTool(s.name, opts...)
	in, err := portableSchema(tool.RawInputSchema, s.inputs, false)
	if err != nil {
		panic(fmt.Sprintf("%s: input schema: %v", s.name, err)) // a spec's fault, met by every test
	}
	generated, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		panic(fmt.Sprintf("%s: output schema: %v", s.name, err))
	}
	out, err := portableSchema(generated, nil, true)
	if err != nil {
		panic(fmt.Sprintf("%s: output schema: %v", s.name, err))
	}
	tool.RawInputSchema, tool.RawOutputSchema, tool.OutputSchema = in, out, mcp.ToolOutputSchema{}
	return server.ServerTool{
		Tool: tool,
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := bind[A](v, req)
			if err != nil {
				return nil, err
			}
			if len(req.Params.InputResponses) > 0 {
				ctx = context.WithValue(ctx, inputKey{}, req.Params.InputResponses)
			}
			ctx = withProgress(ctx, req)
			res, err := s.run(ctx, vault, args)
			if r, ok := inputRequired(err); ok {
				return r, nil
			}
			if err != nil {
				return nil, errors.From(err)
			}
			if s.raw {
				content := []mcp.Content{mcp.NewTextContent(s.text(res))}
				if s.media != nil {
					content = append(content, s.media(res)...)
				}
				if s.notice != nil {
					if n := s.notice(res); n != "" {
						// For the model: a face that prints the result for
						// a person (the envelope API's stdout) leaves it out.
						note := mcp.NewTextContent(n)
						note.Annotations = &mcp.Annotations{Audience: []mcp.Role{mcp.RoleAssistant}}
						content = append(content, note)
					}
				}
				return &mcp.CallToolResult{Content: content, StructuredContent: nonNull(res)}, nil
			}
			text, err := render(res)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: nonNull(Envelope[R]{Success: true, Data: res})}, nil
		},
	}
}

// annotation is the hints as MCP annotations, saying only what differs
// from MCP's defaults (readOnly false, destructive true, idempotent false,
// open-world true): every byte of tools/list is paid for in the model's
// context. The title is the tool's own (Tool.Title); destructive and
// idempotent mean something only for a tool that writes.
func (h hints) annotation() mcp.ToolAnnotation {
	a := mcp.ToolAnnotation{OpenWorldHint: mcp.ToBoolPtr(false)} // a local vault, nothing beyond it
	switch {
	case h.readOnly:
		a.ReadOnlyHint = mcp.ToBoolPtr(true)
	default:
		a.DestructiveHint = mcp.ToBoolPtr(h.destructive)
		if h.idempotent {
			a.IdempotentHint = mcp.ToBoolPtr(true)
		}
	}
	return a
}

// registry is every tool, in the order tools/list presents them.
func registry() []entry {
	return []entry{
		createNote, readNote, appendToNote, prependToNote, deleteNote, moveNote, renameNote, openNote, fileInfo, noteStatsTool,
		searchNotes, listFiles, readNotes, getOutline, getProperties, getLinks, getBacklinks, listUnresolvedLinks,
		listOrphans, listTags, listTaggedNotes, listProperties, patchNote, replaceInNote, setProperty, removeProperty,
		updateTags, renameTag, renameHeading, dailyNote, listTemplates, listTasks, updateTask, readCanvas, editCanvas, readAttachment,
		queryBase, queryDataview, listCommands, runCommand, folderTool, history, undo, replaceInVault,
	}
}

// Named is the tool called name on vault, built alone (building every
// tool's schema is most of what All costs), and whether there is one.
func Named(vault Vault, name string) (server.ServerTool, bool) {
	for _, e := range registry() {
		if e.facts().name == name {
			return e.build(vault, newValidator()), true
		}
	}
	return server.ServerTool{}, false
}

// All is every tool on vault, in the order tools/list presents them.
func All(vault Vault) []server.ServerTool {
	v := newValidator()
	var out []server.ServerTool
	for _, e := range registry() {
		out = append(out, e.build(vault, v))
	}
	return out
}
