// Package upstream is the client side of the HTTP servers the stdio bridge
// stands in front of (the README's bridge section): the Bridge Protocol
// v1 (/bridge/v1) and MCP over HTTP (/mcp), as the ObsiScripta plugin and
// `obsidian-mcp serve` offer them, and the contract's auto mode that tries
// MCP first and falls back to v1 for good.
//
// A call is never sent twice: auto falls back on a call only when the MCP
// answer proves the call did not run (JSON-RPC -32601, HTTP 404, 405 or 501).
package upstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Tool is a tool as the server describes it, schemas kept as sent.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// Result is a call's answer, content kept as sent.
type Result struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// Transport is one way to reach the server.
type Transport interface {
	// Name is "mcp" or "v1".
	Name() string
	Health(ctx context.Context) error
	// Tools lists the tools and a hash that changes when, and only when,
	// the tool set does.
	Tools(ctx context.Context) ([]Tool, string, error)
	Call(ctx context.Context, name string, args json.RawMessage) (*Result, error)
}

// HTTPError is an answer with a status that is not 2xx.
type HTTPError struct {
	Status int
	// Body is the start of the answer, for messages.
	Body string
	// JSON says whether the body was JSON (or empty): a 4xx in JSON is the
	// server's word that the request is wrong, not that it is starting.
	JSON bool
	// Code and Message are the body's "error" and "message" when it has
	// them (the Bridge Protocol v1's errors, ours): said in words.
	Code, Message string
}

func (e *HTTPError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("%s (HTTP %d %s)", e.Message, e.Status, e.Code)
	}
	msg := fmt.Sprintf("HTTP %d", e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (JSON-RPC %d)", e.Message, e.Code) }

// JSONRPCError passes the server's error on as it is.
func (e *RPCError) JSONRPCError() (code int, message string, data any) {
	if len(e.Data) == 0 {
		return e.Code, e.Message, nil
	}
	return e.Code, e.Message, e.Data
}

// doJSON sends a request with a JSON body (nil: none) and returns the
// answer's body; a non-2xx status is an *HTTPError.
func doJSON(ctx context.Context, client *http.Client, method, url string, body []byte, headers map[string]string) (*http.Response, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return resp, nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		trimmed := bytes.TrimSpace(data)
		he := &HTTPError{Status: resp.StatusCode, Body: snippet(trimmed), JSON: len(trimmed) == 0 || json.Valid(trimmed)}
		var words struct {
			Error   any    `json:"error"`
			Message string `json:"message"`
		}
		if json.Unmarshal(trimmed, &words) == nil {
			code, _ := words.Error.(string)
			he.Code, he.Message = code, snippet([]byte(words.Message))
		}
		return resp, data, he
	}
	return resp, data, nil
}

func snippet(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// canonicalHash hashes v's JSON with every object's keys sorted and arrays
// kept in order, so that key order alone never changes it.
func canonicalHash(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil { // maps encode with sorted keys
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
	return hex.EncodeToString(sum[:]), nil
}
