// Package envelope serves the envelope API (the README's serve section):
// POST /v1/mcp (and /mcp for a body that is not JSON-RPC) with list_tools
// and call_tool in the direct (name/args) and params forms, answered with
// HTTP 200 always and a JSON envelope (ok, summary, result, error_detail,
// error, metrics, meta, and the legacy mirror fields); and GET /health and
// /v1/health with the contract's fields mapped to this server.
//
// Tools are listed and called through the MCP server (protocol.Caller), so
// read-only mode, the folder policy and the tools' own checks hold.
package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// APIVersion is the contract's version, in every answer's meta.
const APIVersion = "v1"

// Handler serves the envelope API.
type Handler struct {
	Caller *protocol.Caller
	// Version is ours, reported as meta.container_version and version.
	Version string
	// GitSHA is the commit the binary was built from ("" if unknown).
	GitSHA string
	// Confirm reports whether a call must be confirmed with _confirm
	// first (the contract's need_confirm): deletes, overwrites, moves and
	// renames.
	Confirm func(tool string, args map[string]any) bool
	// Health reports "ok" or "degraded", and why (see health).
	Health func(ctx context.Context) (status, why string)
	// Strict says whether the server runs in its strict security mode: an
	// API key required, and no web page allowed in by a '*' origin.
	Strict bool
	// PolicyLoaded says whether the folder policy is in force as written
	// (false when the vault's .mcpignore could not be used).
	PolicyLoaded func(ctx context.Context) bool
	Started      time.Time
}

// Request is a POST's body, in either form.
type Request struct {
	ID     any            `json:"id,omitempty"`
	Method string         `json:"method"`
	Name   string         `json:"name,omitempty"`
	Args   map[string]any `json:"args,omitempty"`
	// Arguments is accepted for args, as MCP spells it.
	Arguments map[string]any `json:"arguments,omitempty"`
	Params    *struct {
		Name      string         `json:"name,omitempty"`
		Args      map[string]any `json:"args,omitempty"`
		Arguments map[string]any `json:"arguments,omitempty"`
	} `json:"params,omitempty"`
}

// Envelope is every answer.
type Envelope struct {
	OK          bool         `json:"ok"`
	Summary     string       `json:"summary"`
	Result      *Result      `json:"result,omitempty"`
	ErrorDetail *ErrorDetail `json:"error_detail,omitempty"`
	Error       string       `json:"error,omitempty"`
	Metrics     Metrics      `json:"metrics"`
	Meta        Meta         `json:"meta"`
	// The legacy mirror of the canonical blocks.
	NeedConfirm bool   `json:"need_confirm,omitempty"`
	Data        any    `json:"data,omitempty"`
	Stdout      string `json:"stdout,omitempty"`
	Stderr      string `json:"stderr,omitempty"`
	// ID echoes the request's.
	ID any `json:"id,omitempty"`
}

// Result is a successful (or to-be-confirmed) call's block.
type Result struct {
	Summary     string       `json:"summary"`
	Data        any          `json:"data,omitempty"`
	Stdout      string       `json:"stdout,omitempty"`
	Stderr      string       `json:"stderr,omitempty"`
	NeedConfirm *NeedConfirm `json:"need_confirm,omitempty"`
}

// NeedConfirm says how to confirm a call.
type NeedConfirm struct {
	Required bool           `json:"required"`
	Message  string         `json:"message"`
	Code     string         `json:"code,omitempty"`
	Details  map[string]any `json:"details"`
}

// ErrorDetail is a failure's block.
type ErrorDetail struct {
	Summary string `json:"summary"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Details any    `json:"details,omitempty"`
	Stdout  string `json:"stdout,omitempty"`
	Stderr  string `json:"stderr,omitempty"`
}

// Metrics are required in every answer.
type Metrics struct {
	ElapsedMS int64 `json:"elapsed_ms"`
	ExitCode  int   `json:"exit_code"`
}

// Meta identifies the contract and the build.
type Meta struct {
	APIVersion       string `json:"api_version"`
	ContainerVersion string `json:"container_version"`
	GitSHA           string `json:"git_sha"`
}

// IsEnvelope reports whether a POST to /mcp is for this API rather than
// JSON-RPC: a JSON object without a "jsonrpc" member.
func IsEnvelope(body []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, rpc := m["jsonrpc"]
	return !rpc
}

func (h *Handler) meta() Meta { return MetaOf(h.Version, h.GitSHA) }

// ServeHTTP answers a POST (any path it is mounted on) with an envelope.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	env := h.serve(r)
	env.Metrics.ElapsedMS = time.Since(start).Milliseconds()
	env.Meta = h.meta()
	Write(w, env)
}

// Write sends an envelope, always with status 200.
func Write(w http.ResponseWriter, env Envelope) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		buf.Reset()
		fmt.Fprintf(&buf, `{"ok":false,"summary":"`+Failed+`","error":%q,"metrics":{"elapsed_ms":0,"exit_code":1}}`+"\n", "the answer could not be encoded: "+err.Error())
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// The summaries of a request that failed before any tool ran: Invalid when
// the request itself is wrong (clients of the contract, BurlyMCP's among
// them, look for "validation" in it), Failed when it could not be
// processed.
const (
	Invalid = "Request validation failed"
	Failed  = "Request processing failed"
)

// Failure is an envelope for a request that failed before any tool ran.
func Failure(summary, code, msg string, exitCode int) Envelope {
	return Envelope{
		Summary:     summary,
		ErrorDetail: &ErrorDetail{Summary: summary, Message: msg, Code: code},
		Error:       msg,
		Metrics:     Metrics{ExitCode: exitCode},
	}
}

// AuthRequired is the contract's answer to a request without the right key.
func AuthRequired(version, gitSHA string) Envelope {
	env := Failure("Authentication required", "AUTH_REQUIRED", "Missing or invalid API key", 1)
	env.Meta = MetaOf(version, gitSHA)
	return env
}

// MetaOf is the meta of this server's answers.
func MetaOf(version, gitSHA string) Meta {
	return Meta{APIVersion: APIVersion, ContainerVersion: version, GitSHA: gitSHA}
}

func (h *Handler) serve(r *http.Request) Envelope {
	if r.Method != http.MethodPost {
		return Failure(Invalid, "METHOD_NOT_ALLOWED", "HTTP bridge error: use POST with a JSON body", 1)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r.Body); err != nil {
		return Failure(Failed, "INVALID_REQUEST", "HTTP bridge error: the body could not be read: "+err.Error(), 1)
	}
	var req Request
	if err := json.Unmarshal(buf.Bytes(), &req); err != nil {
		return Failure(Invalid, "INVALID_REQUEST", "HTTP bridge error: the body is not a JSON object of this API: "+err.Error(), 1)
	}
	var env Envelope
	switch req.Method {
	case "list_tools":
		env = h.listTools(r.Context())
	case "call_tool":
		name, args := req.Name, firstArgs(req.Args, req.Arguments)
		if req.Params != nil {
			if name == "" {
				name = req.Params.Name
			}
			if args == nil {
				args = firstArgs(req.Params.Args, req.Params.Arguments)
			}
		}
		env = h.callTool(r.Context(), name, args)
	default:
		env = Failure(Invalid, "INVALID_METHOD", "HTTP bridge error: Method must be one of: ['list_tools', 'call_tool']", 1)
	}
	env.ID = req.ID
	return env
}

func firstArgs(a, b map[string]any) map[string]any {
	if a != nil {
		return a
	}
	return b
}

func (h *Handler) listTools(ctx context.Context) Envelope {
	ts, err := h.Caller.Tools(ctx)
	if err != nil {
		return failed("list_tools", err)
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	out := make([]tool, 0, len(ts))
	for _, t := range ts {
		schema, err := json.Marshal(t.InputSchema)
		if t.RawInputSchema != nil {
			schema, err = t.RawInputSchema, nil
		}
		if err != nil {
			return failed("list_tools", err)
		}
		out = append(out, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	data := map[string]any{"tools": out}
	summary := fmt.Sprintf("Available tools: %d tools found", len(out))
	return Envelope{OK: true, Summary: summary, Result: &Result{Summary: summary, Data: data}, Data: data}
}

// confirmed reads the contract's _confirm argument: true, "true", "1",
// "yes", "y" or 1.
func confirmed(v any) bool {
	switch c := v.(type) {
	case bool:
		return c
	case float64:
		return c == 1
	case string:
		switch strings.ToLower(strings.TrimSpace(c)) {
		case "true", "1", "yes", "y":
			return true
		}
	}
	return false
}

func (h *Handler) callTool(ctx context.Context, name string, args map[string]any) Envelope {
	if name == "" {
		return Failure(Invalid, "INVALID_REQUEST", "HTTP bridge error: call_tool needs the tool's name (name, or params.name)", 1)
	}
	if args == nil {
		args = map[string]any{}
	}
	confirm, given := args["_confirm"]
	delete(args, "_confirm")
	if h.Confirm != nil && h.Confirm(name, args) && !(given && confirmed(confirm)) {
		summary := name + " requires confirmation"
		msg := "Confirmation required for mutating operation"
		details := map[string]any{
			"required_arg":   "_confirm",
			"required_value": true,
			"suggestion":     fmt.Sprintf("Add '_confirm': true to %s arguments", name),
		}
		return Envelope{
			Summary:     summary,
			Result:      &Result{Summary: summary, NeedConfirm: &NeedConfirm{Required: true, Message: msg, Code: "CONFIRMATION_REQUIRED", Details: details}},
			ErrorDetail: &ErrorDetail{Summary: summary, Message: msg, Code: "CONFIRMATION_REQUIRED"},
			Error:       msg,
			Metrics:     Metrics{ExitCode: 1},
			NeedConfirm: true,
			Data:        details,
		}
	}
	res, err := h.Caller.Call(ctx, name, args)
	if err != nil {
		return failed(name, err)
	}
	stdout, data := textAndData(res)
	if res.IsError {
		summary := name + " failed"
		return Envelope{Summary: summary, ErrorDetail: &ErrorDetail{Summary: summary, Message: stdout, Stdout: stdout}, Error: stdout,
			Metrics: Metrics{ExitCode: 1}, Stdout: stdout}
	}
	summary := name + " completed"
	return Envelope{OK: true, Summary: summary, Result: &Result{Summary: summary, Data: data, Stdout: stdout}, Data: data, Stdout: stdout}
}

// textAndData are a result's text blocks joined, but for those meant for
// the model alone (audience ["assistant"]: a read's version line), and its
// data: the structured content's data member (our tools'
// {"success":true,"data":…}), or the structured content itself.
func textAndData(res *protocol.Result) (string, any) {
	var texts []string
	for _, raw := range res.Content {
		var c struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			Annotations struct {
				Audience []string `json:"audience"`
			} `json:"annotations"`
		}
		if json.Unmarshal(raw, &c) != nil || c.Type != "text" {
			continue
		}
		if forModel := len(c.Annotations.Audience) == 1 && c.Annotations.Audience[0] == "assistant"; !forModel {
			texts = append(texts, c.Text)
		}
	}
	data := res.StructuredContent
	if m, ok := data.(map[string]any); ok {
		if d, ok := m["data"]; ok && m["success"] == true {
			data = d
		}
	}
	return strings.Join(texts, "\n"), data
}

// failed is the envelope of a failed call: our error's code, message and
// data; exit code 124 for a timeout, as the contract's engine timeout.
func failed(tool string, err error) Envelope {
	var pe *protocol.ProtocolError
	if errors.As(err, &pe) {
		code := "PROTOCOL_ERROR"
		if strings.Contains(pe.Message, "not found") {
			code = "TOOL_NOT_FOUND"
		}
		env := Failure(tool+" failed", code, pe.Message, 1)
		env.ErrorDetail.Details = map[string]any{"code": pe.Code}
		return env
	}
	e := errors.From(err)
	exit := 1
	if e.Kind == errors.Timeout {
		exit = 124
	}
	summary := tool + " failed: " + string(e.Kind)
	env := Failure(summary, string(e.Kind), e.Message, exit)
	data := e.Data()
	data["code"] = e.Code()
	env.ErrorDetail.Details = data
	env.Data = data
	return env
}

// Health is GET /health's answer.
type Health struct {
	Status               string `json:"status"`
	ServerName           string `json:"server_name"`
	Version              string `json:"version"`
	ToolsAvailable       int    `json:"tools_available"`
	NotificationsEnabled bool   `json:"notifications_enabled"`
	DockerAvailable      bool   `json:"docker_available"`
	StrictSecurityMode   bool   `json:"strict_security_mode"`
	PolicyLoaded         bool   `json:"policy_loaded"`
	UptimeSeconds        int64  `json:"uptime_seconds"`
	// Reason says why the status is not ok.
	Reason string `json:"reason,omitempty"`
}

// ServeHealth answers GET /health and /v1/health: "ok" when the tools can
// be served and the policy is in force as written; "degraded" when the app
// cannot be reached and no vault folder is known (or the policy is not as
// written); "error" when the tools cannot even be listed.
func (h *Handler) ServeHealth(w http.ResponseWriter, r *http.Request) {
	out := Health{Status: "ok", ServerName: "obsidian-mcp", Version: h.Version, StrictSecurityMode: h.Strict,
		PolicyLoaded: true, UptimeSeconds: int64(time.Since(h.Started).Seconds())}
	ts, err := h.Caller.Tools(r.Context())
	switch {
	case err != nil:
		out.Status, out.Reason = "error", "the tools cannot be listed: "+err.Error()
	default:
		out.ToolsAvailable = len(ts)
		if h.PolicyLoaded != nil && !h.PolicyLoaded(r.Context()) {
			out.PolicyLoaded, out.Status, out.Reason = false, "degraded", "the vault's .mcpignore cannot be used, so every note is hidden"
		}
		if h.Health != nil {
			if status, why := h.Health(r.Context()); status != "ok" {
				out.Status, out.Reason = status, why
			}
		}
	}
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(out)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}
