// Package bridgev1 serves the Bridge Protocol v1 (the ObsiScripta Bridge
// plugin's HTTP API, as the README's serve section describes) under
// /bridge/v1: GET /health, GET /tools with the tool set's hash, and POST
// /tools/{name}/call. Tool failures are 200 answers with success false;
// HTTP statuses are for transport, validation and routing failures, in the
// {error, message, details} shape.
//
// Tools are listed and called through the MCP server (protocol.Caller), so
// read-only mode, the folder policy and every tool's own checks hold here
// as on every other transport.
package bridgev1

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// Prefix is where the protocol is served.
const Prefix = "/bridge/v1"

// ProtocolVersion is the protocol's major version, as /health says it.
const ProtocolVersion = "1"

// MaxBody is the contract's limit on a call's body.
const MaxBody = 1 << 20

// Handler serves the protocol.
type Handler struct {
	Caller  *protocol.Caller
	Version string
}

// httpError is the protocol's error body.
type httpError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), Prefix)
	if !ok {
		fail(w, http.StatusNotFound, "NOT_FOUND", "Not found", nil)
		return
	}
	switch {
	case rest == "/health":
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": h.Version, "protocolVersion": ProtocolVersion})
		}
	case rest == "/tools":
		if allow(w, r, http.MethodGet) {
			h.tools(w, r)
		}
	case strings.HasPrefix(rest, "/tools/") && strings.HasSuffix(rest, "/call") && strings.Count(rest, "/") == 3:
		name, err := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(rest, "/tools/"), "/call"))
		if err != nil || name == "" {
			fail(w, http.StatusNotFound, "TOOL_NOT_FOUND", "Tool name is not valid URL encoding", nil)
			return
		}
		if allow(w, r, http.MethodPost) {
			h.call(w, r, name)
		}
	default:
		fail(w, http.StatusNotFound, "NOT_FOUND", "Not found: "+r.URL.Path, nil)
	}
}

// allow answers 405 with Allow for any other method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method+", OPTIONS")
	fail(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Method not allowed: use "+method, nil)
	return false
}

// listed is one tool as GET /tools gives it: the three fields the hash
// covers, then what else MCP says of it.
type listed struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

func (h *Handler) tools(w http.ResponseWriter, r *http.Request) {
	ts, err := h.Caller.Tools(r.Context())
	if err != nil {
		fail(w, http.StatusInternalServerError, "EXECUTION_ERROR", "Internal server error: "+err.Error(), nil)
		return
	}
	out := make([]listed, 0, len(ts))
	for _, t := range ts {
		l, err := toListed(t)
		if err != nil {
			fail(w, http.StatusInternalServerError, "EXECUTION_ERROR", "Internal server error: "+err.Error(), nil)
			return
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	hash, err := Hash(out)
	if err != nil {
		fail(w, http.StatusInternalServerError, "EXECUTION_ERROR", "Internal server error: "+err.Error(), nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tools": out, "hash": hash})
}

// toListed reads a tool through its JSON form, as clients see it.
func toListed(t mcp.Tool) (listed, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return listed{}, err
	}
	var l listed
	err = json.Unmarshal(b, &l)
	if len(l.InputSchema) == 0 {
		l.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return l, err
}

// Hash is the contract's hash of a tool set: the tools sorted by name, each
// reduced to name, description and inputSchema with every object's keys
// sorted at every depth (arrays keep their order), as compact JSON without
// HTML escaping, SHA-256 in hex. It changes when, and only when, one of
// those changes.
func Hash(tools []listed) (string, error) {
	canon := make([]map[string]any, 0, len(tools))
	for _, t := range tools {
		var schema any
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return "", fmt.Errorf("the input schema of %s: %w", t.Name, err)
		}
		m := map[string]any{"name": t.Name, "inputSchema": schema}
		if t.Description != "" {
			m["description"] = t.Description
		}
		canon = append(canon, m)
	}
	slices.SortStableFunc(canon, func(a, b map[string]any) int { return strings.Compare(a["name"].(string), b["name"].(string)) })
	// encoding/json writes map keys sorted, which is the deep sort.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(canon); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
	return hex.EncodeToString(sum[:]), nil
}

func (h *Handler) call(w http.ResponseWriter, r *http.Request, name string) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, MaxBody)); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", "Request body too large: the limit is 1 MiB", nil)
			return
		}
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "Invalid request body: "+err.Error(), nil)
		return
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &body); err != nil || body == nil {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", `Invalid request body: it must be a JSON object {"arguments": {...}}`, nil)
		return
	}
	raw, ok := body["arguments"]
	if !ok {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", `Invalid request body: the "arguments" field is missing`, nil)
		return
	}
	var args map[string]any
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(raw, &args) != nil {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", `Invalid request body: "arguments" must be an object (not null, not an array)`, nil)
		return
	}
	if tool, ok := h.Caller.Tool(name); ok {
		if missing := missingArgs(tool, args); len(missing) > 0 {
			// Refused here only if listed: a write tool in read-only mode
			// is not, and its call refuses it naming the setting.
			listed, err := h.listed(r, name)
			switch {
			case err != nil:
				fail(w, http.StatusInternalServerError, "EXECUTION_ERROR", "Internal server error: "+err.Error(), nil)
				return
			case listed:
				fail(w, http.StatusBadRequest, "INVALID_ARGUMENTS", "Missing required argument: "+strings.Join(missing, ", "), map[string]any{"missing": missing})
				return
			}
		}
	}
	res, err := h.Caller.Call(r.Context(), name, args)
	var pe *protocol.ProtocolError
	switch {
	case errors.As(err, &pe) && strings.Contains(pe.Message, "not found"):
		fail(w, http.StatusNotFound, "TOOL_NOT_FOUND", fmt.Sprintf("Tool '%s' not found", name), nil)
	case err != nil:
		e := errors.From(err)
		switch e.Kind {
		case errors.InvalidParams:
			details := map[string]any{"fields": e.Fields}
			if m := requiredFields(e.Fields); len(m) > 0 {
				details["missing"] = m
			}
			fail(w, http.StatusBadRequest, "INVALID_ARGUMENTS", e.Message, details)
		case errors.Internal:
			fail(w, http.StatusInternalServerError, "EXECUTION_ERROR", "Internal server error: "+e.Message, nil)
		default:
			// A tool failure: the model reads the text; the code and hint
			// come with it.
			text := fmt.Sprintf("Error: %s (%s, %d)", e.Message, e.Kind, e.Code())
			if hint, _ := e.Data()["hint"].(string); hint != "" {
				text += "\nHint: " + hint
			}
			block, _ := json.Marshal(mcp.NewTextContent(text))
			writeJSON(w, http.StatusOK, answer{Success: false, Content: []json.RawMessage{block}, IsError: true, Error: errorInfo(e)})
		}
	default:
		writeJSON(w, http.StatusOK, answer{Success: !res.IsError, Content: res.Content, IsError: res.IsError, StructuredContent: res.StructuredContent})
	}
}

// answer is a call's 200 answer. Error and StructuredContent go beyond the
// contract (clients ignore what they do not know): the typed error for
// programs, the tool's structured result for MCP clients behind a bridge.
type answer struct {
	Success           bool              `json:"success"`
	Content           []json.RawMessage `json:"content"`
	IsError           bool              `json:"isError,omitempty"`
	StructuredContent any               `json:"structuredContent,omitempty"`
	Error             map[string]any    `json:"error,omitempty"`
}

func errorInfo(e *errors.Error) map[string]any {
	return map[string]any{"code": e.Code(), "message": e.Message, "data": e.Data()}
}

// listed reports whether tools/list gives the tool. It is asked only when
// a call lacks an argument, so that a call does not list every tool.
func (h *Handler) listed(r *http.Request, name string) (bool, error) {
	ts, err := h.Caller.Tools(r.Context())
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(ts, func(t mcp.Tool) bool { return t.Name == name }), nil
}

// missingArgs are the schema's required arguments that args lacks.
func missingArgs(t mcp.Tool, args map[string]any) []string {
	l, err := toListed(t)
	if err != nil {
		return nil
	}
	var schema struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(l.InputSchema, &schema)
	var missing []string
	for _, name := range schema.Required {
		if _, ok := args[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}

// requiredFields are the fields our validation found missing.
func requiredFields(fields []errors.Field) []string {
	var out []string
	for _, f := range fields {
		if f.Message == "is required" {
			out = append(out, f.Field)
		}
	}
	return out
}

func fail(w http.ResponseWriter, status int, code, msg string, details any) {
	writeJSON(w, status, httpError{Error: code, Message: msg, Details: details})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"EXECUTION_ERROR","message":"Internal server error: the answer could not be encoded"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
