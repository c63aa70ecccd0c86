package protocol

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Caller calls the tools of an MCP server as a client would, in process.
type Caller struct {
	Server *server.MCPServer
}

// request is a JSON-RPC request for HandleMessage.
func request(method string, params any) ([]byte, error) {
	return json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": 1, "method": method, "params": params})
}

// answer runs one request and decodes its result into v, or returns its
// error: our typed error when the call recorded one.
func (c *Caller) answer(ctx context.Context, method string, params, v any) error {
	ctx, s := withSlot(context.WithValue(ctx, typedKey{}, true))
	msg, err := request(method, params)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	res := c.Server.HandleMessage(ctx, msg)
	if e, ok := toolFailure(res); ok {
		return e
	}
	out, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encoding the answer to %s: %w", method, err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return fmt.Errorf("decoding the answer to %s: %w", method, err)
	}
	if resp.Error != nil {
		if f, _ := s.failure(); f != nil {
			if e, ok := coded(f.Err); ok {
				return e
			}
		}
		return &ProtocolError{Code: resp.Error.Code, Message: resp.Error.Message}
	}
	if err := json.Unmarshal(resp.Result, v); err != nil {
		return fmt.Errorf("decoding the result of %s: %w", method, err)
	}
	return nil
}

// ProtocolError is a JSON-RPC error that is not one of our typed errors:
// an unknown tool (-32602 from mcp-go), a method not found.
type ProtocolError struct {
	Code    int
	Message string
}

func (e *ProtocolError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// Tools lists the tools as tools/list gives them (the read-only filter
// applied), every page.
func (c *Caller) Tools(ctx context.Context) ([]mcp.Tool, error) {
	var all []mcp.Tool
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res mcp.ListToolsResult
		if err := c.answer(ctx, string(mcp.MethodToolsList), params, &res); err != nil {
			return nil, err
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		cursor = string(res.NextCursor)
	}
}

// Tool is the tool registered under name, listed or not (in read-only
// mode the write tools are registered, to refuse calls, but not listed).
func (c *Caller) Tool(name string) (mcp.Tool, bool) {
	if st := c.Server.GetTool(name); st != nil {
		return st.Tool, true
	}
	return mcp.Tool{}, false
}

// Result is a tool's answer as the server gave it: the content blocks
// untouched, for a transport to pass on as they are.
type Result struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent any               `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// Call calls a tool. A failure the tool reports is its typed error; an
// unknown tool is a *ProtocolError.
func (c *Caller) Call(ctx context.Context, name string, args map[string]any) (*Result, error) {
	raw := json.RawMessage(`{}`)
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, &ProtocolError{Code: mcp.INVALID_PARAMS, Message: "the arguments cannot be encoded: " + err.Error()}
		}
		raw = b
	}
	var res Result
	if err := c.answer(ctx, string(mcp.MethodToolsCall), map[string]any{"name": name, "arguments": raw}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
