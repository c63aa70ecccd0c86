package bridge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge/upstream"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// instructions are sent in initialize for the model.
const instructions = `Tools of an Obsidian vault served by a running Obsidian (or obsidian-mcp serve), reached through a local bridge. ` +
	`The tool set can change while you work (the client is told); a failure that starts with "Error:" is the server's or the connection's, said in words.`

// capabilities are what the server offers over MCP besides tools; nil
// when it cannot say (or is reached over the Bridge Protocol v1).
func (b *Bridge) capabilities(ctx context.Context) map[string]json.RawMessage {
	fwd := b.forwarder()
	if fwd == nil {
		return nil
	}
	caps, err := fwd.Capabilities(ctx)
	if err != nil {
		b.o.Logger.Warn("the server's capabilities are unknown; serving tools only", "err", err)
	}
	return caps
}

// newServer is the bridge's MCP server, with the capabilities the server
// offers; b.mu is held.
func (b *Bridge) newServer(offers map[string]json.RawMessage) *server.MCPServer {
	b.offers = offers
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	opts := []server.ServerOption{
		server.WithToolCapabilities(true),
		server.WithHooks(hooks),
		server.WithInstructions(instructions),
		server.WithTitle("Obsidian (bridge)"),
	}
	if b.offers["resources"] != nil {
		opts = append(opts, server.WithResourceCapabilities(false, false))
		b.forwardResources(hooks)
	}
	if b.offers["prompts"] != nil {
		opts = append(opts, server.WithPromptCapabilities(true))
	}
	s := server.NewMCPServer(b.o.Name, b.o.Version, opts...)
	if b.offers["resources"] != nil {
		// Every URI is the server's to read: one template that matches
		// them all sends resources/read on (the listing hook hides it).
		s.AddResourceTemplate(mcp.NewResourceTemplate("{+uri}", "any resource of the server"), b.readResource)
	}
	return s
}

// substitute answers a call to a tool not in the current set as the
// contract says: an isError result, where mcp-go would answer -32602;
// while the server has not answered yet, the result says why and what to
// do. The server's own JSON-RPC errors (upstream.RPCError) need nothing:
// the core passes them on as they are.
func (b *Bridge) substitute(f protocol.Failure) (any, bool) {
	if f.Method != mcp.MethodToolsCall || !errors.Is(f.Err, server.ErrToolNotFound) {
		return nil, false
	}
	b.mu.Lock()
	down := b.down
	b.mu.Unlock()
	if down != nil {
		return errorResult(b.unreachable(down)), true
	}
	name := ""
	if req, ok := f.Message.(*mcp.CallToolRequest); ok {
		name = req.Params.Name
	}
	return errorResult(fmt.Sprintf("Error: Tool '%s' not found", name)), true
}

// proxy is the bridge's tool for one of the server's.
func (b *Bridge) proxy(t upstream.Tool) (server.ServerTool, error) {
	if t.Name == "" {
		return server.ServerTool{}, errors.New("the tool has no name")
	}
	schema, err := objectSchema(t.InputSchema)
	if err != nil {
		return server.ServerTool{}, fmt.Errorf("inputSchema: %w", err)
	}
	tool := mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, RawInputSchema: schema}
	if len(t.OutputSchema) > 0 && !bytes.Equal(t.OutputSchema, []byte("null")) {
		tool.RawOutputSchema = t.OutputSchema
	}
	if len(t.Annotations) > 0 {
		if err := json.Unmarshal(t.Annotations, &tool.Annotations); err != nil {
			b.o.Logger.Warn("a tool's annotations are not MCP's; left out", "tool", t.Name, "err", err)
		}
	}
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		return server.ServerTool{}, err
	}
	return server.ServerTool{Tool: tool, Handler: b.call}, nil
}

// objectSchema is the tool's input schema with its type "object", as MCP
// requires (a missing or foreign schema becomes an empty object schema).
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	var schema map[string]json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &schema); err != nil {
			schema = nil
		}
	}
	if schema == nil {
		schema = map[string]json.RawMessage{}
	}
	schema["type"] = json.RawMessage(`"object"`)
	return json.Marshal(schema)
}

// call forwards one tool call: once, bounded by CallTimeout. A failure of
// the transport is an isError result in words; the server's JSON-RPC error
// is passed on as it is (protocol.ToolFailure).
func (b *Bridge) call(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	start := time.Now()
	name := req.Params.Name
	args := req.Params.RawArguments
	if len(args) == 0 {
		raw, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return errorResult("Error: the arguments cannot be sent: " + err.Error()), nil
		}
		args = raw
	}
	if bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage(`{}`)
	}
	ctx, cancel := context.WithTimeout(ctx, b.o.CallTimeout)
	defer cancel()
	res, err := b.up.Call(ctx, name, args)
	elapsed := time.Since(start).Round(time.Millisecond)
	var re *upstream.RPCError
	switch {
	case err == nil:
		b.o.Logger.Info("tool call", "tool", name, "duration", elapsed, "outcome", outcome(res))
		return result(res), nil
	case errors.As(err, &re):
		b.o.Logger.Info("tool call", "tool", name, "duration", elapsed, "outcome", "error", "code", re.Code, "message", re.Message)
		return protocol.ToolFailure(re), nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		b.o.Logger.Warn("tool call", "tool", name, "duration", elapsed, "outcome", "timeout")
		return errorResult(fmt.Sprintf("Error: %s did not answer %s within %s (--call-timeout)", b.o.Target(), name, b.o.CallTimeout)), nil
	case errors.As(err, new(*net.OpError)):
		// The server is gone (or not there yet): what to do about it.
		b.o.Logger.Warn("tool call", "tool", name, "duration", elapsed, "outcome", "unreachable", "err", err)
		return errorResult(b.unreachable(err)), nil
	default:
		b.o.Logger.Warn("tool call", "tool", name, "duration", elapsed, "outcome", "failed", "err", err)
		return errorResult("Error: " + err.Error()), nil
	}
}

func outcome(res *upstream.Result) string {
	if res.IsError {
		return "isError"
	}
	return "ok"
}

// errorResult is a failure in words.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: true}
}

// result is the server's answer, content and structured content as sent.
func result(res *upstream.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(res.Content)), IsError: res.IsError}
	for _, c := range res.Content {
		out.Content = append(out.Content, rawContent{raw: c})
	}
	if len(res.StructuredContent) > 0 && !bytes.Equal(res.StructuredContent, []byte("null")) {
		out.RawStructuredContent = res.StructuredContent
	}
	return out
}

// rawContent is a content block passed on byte for byte (text, image,
// audio, resource links, embedded resources, and kinds not yet known).
// mcp.Content has an unexported method; the embedded TextContent lends
// it, and MarshalJSON writes the block as the server sent it.
type rawContent struct {
	mcp.TextContent
	raw json.RawMessage
}

func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }

// rawResourceContents is a resource's contents passed on as sent.
type rawResourceContents struct {
	mcp.TextResourceContents
	raw json.RawMessage
}

func (c rawResourceContents) MarshalJSON() ([]byte, error) { return c.raw, nil }

// forwardResources fills resources/list and resources/templates/list with
// the server's, page by page.
func (b *Bridge) forwardResources(hooks *server.Hooks) {
	hooks.AddAfterListResources(func(ctx context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		var out mcp.ListResourcesResult
		if b.forward(ctx, mcp.MethodResourcesList, pageParams(req.Params.Cursor), &out) {
			res.Resources, res.NextCursor = out.Resources, out.NextCursor
		}
		if res.Resources == nil {
			res.Resources = []mcp.Resource{}
		}
	})
	hooks.AddAfterListResourceTemplates(func(ctx context.Context, _ any, req *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
		var out mcp.ListResourceTemplatesResult
		res.ResourceTemplates, res.NextCursor = []mcp.ResourceTemplate{}, ""
		if b.forward(ctx, mcp.MethodResourcesTemplatesList, pageParams(req.Params.Cursor), &out) {
			res.ResourceTemplates, res.NextCursor = out.ResourceTemplates, out.NextCursor
		}
		if res.ResourceTemplates == nil {
			res.ResourceTemplates = []mcp.ResourceTemplate{}
		}
	})
}

// pageParams is a listing's params: the cursor only. The client's _meta (its
// own protocol revision, progress tokens) is not the bridge's to send on.
func pageParams(cursor mcp.Cursor) map[string]any {
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	return params
}

// forward sends a listing request on and decodes its result into v. On a
// failure the client gets the error in place of the hook's result.
func (b *Bridge) forward(ctx context.Context, method mcp.MCPMethod, params, v any) bool {
	err := b.request(ctx, string(method), params, v)
	if err == nil {
		return true
	}
	b.o.Logger.Warn("forwarding failed", "method", method, "err", err)
	var re *upstream.RPCError
	if !errors.As(err, &re) {
		re = &upstream.RPCError{Code: mcp.INTERNAL_ERROR, Message: "Error: " + err.Error()}
	}
	protocol.Fail(ctx, re)
	return false
}

// forwarder is the transport for resources and prompts, nil when none.
func (b *Bridge) forwarder() Forwarder {
	if b.o.Forwarder == nil {
		return nil
	}
	return b.o.Forwarder()
}

// request sends method on over MCP, bounded by ListTimeout.
func (b *Bridge) request(ctx context.Context, method string, params, v any) error {
	fwd := b.forwarder()
	if fwd == nil {
		return errors.New("the server is reached over the Bridge Protocol v1 now, which has no " + method)
	}
	ctx, cancel := context.WithTimeout(ctx, b.o.ListTimeout)
	defer cancel()
	raw, err := fwd.Request(ctx, method, params)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("the server's %s answer is not MCP's: %w", method, err)
	}
	return nil
}

// readResource sends resources/read on; the contents pass as sent.
func (b *Bridge) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	var out struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := b.request(ctx, string(mcp.MethodResourcesRead), map[string]any{"uri": req.Params.URI}, &out); err != nil {
		return nil, err
	}
	contents := make([]mcp.ResourceContents, 0, len(out.Contents))
	for _, c := range out.Contents {
		contents = append(contents, rawResourceContents{raw: c})
	}
	return contents, nil
}

// syncPrompts mirrors the server's prompts when it offers them, replacing
// them when they change.
func (b *Bridge) syncPrompts(ctx context.Context) error {
	b.mu.Lock()
	offered := b.offers["prompts"] != nil
	s := b.s
	b.mu.Unlock()
	if !offered || s == nil {
		return nil
	}
	var all []mcp.Prompt
	cursor := ""
	for page := 0; page < 1000; page++ {
		var out mcp.ListPromptsResult
		if err := b.request(ctx, string(mcp.MethodPromptsList), pageParams(mcp.Cursor(cursor)), &out); err != nil {
			return err
		}
		all = append(all, out.Prompts...)
		if cursor = string(out.NextCursor); cursor == "" {
			break
		}
	}
	data, err := json.Marshal(all)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	b.mu.Lock()
	defer b.mu.Unlock()
	if hash == b.prompts {
		return nil
	}
	b.prompts = hash
	set := make([]server.ServerPrompt, 0, len(all))
	for _, p := range all {
		set = append(set, server.ServerPrompt{Prompt: p, Handler: b.getPrompt})
	}
	s.SetPrompts(set...)
	return nil
}

// getPrompt sends prompts/get on; the messages' content passes as sent.
func (b *Bridge) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	var out struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    mcp.Role        `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	params := map[string]any{"name": req.Params.Name}
	if len(req.Params.Arguments) > 0 {
		params["arguments"] = req.Params.Arguments
	}
	if err := b.request(ctx, string(mcp.MethodPromptsGet), params, &out); err != nil {
		return nil, err
	}
	res := &mcp.GetPromptResult{Description: out.Description, Messages: make([]mcp.PromptMessage, 0, len(out.Messages))}
	for _, m := range out.Messages {
		res.Messages = append(res.Messages, mcp.PromptMessage{Role: m.Role, Content: rawContent{raw: m.Content}})
	}
	return res, nil
}
