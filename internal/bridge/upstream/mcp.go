package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProtocolVersion is the MCP revision the bridge asks for.
const ProtocolVersion = "2025-11-25"

// MCP speaks MCP over HTTP (JSON-RPC POSTs) to URL. It opens a real session
// when the server has one (initialize, its session id and the protocol
// version header on every request after), and otherwise posts session-less,
// as the ObsiScripta plugin is spoken to. Answers may be JSON or SSE.
type MCP struct {
	URL string
	// APIKey, when set, goes with every request as X-ObsiScripta-Api-Key.
	APIKey string
	HTTP   *http.Client
	// ClientName and ClientVersion are sent in initialize.
	ClientName, ClientVersion string

	mu      sync.Mutex
	url     string // set by SetURL; URL until then
	started bool   // initialize done, or the server has none
	session string // Mcp-Session-Id, "" when session-less
	version string // negotiated protocol version, "" when none
	caps    map[string]json.RawMessage
	nextID  atomic.Int64
}

// SetURL points the transport at another endpoint (the server moved to
// another port); the next request opens a new session there.
func (m *MCP) SetURL(u string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u != m.endpoint() {
		m.url, m.started, m.session, m.version, m.caps = u, false, "", "", nil
	}
}

// endpoint is the URL in use; m.mu is held.
func (m *MCP) endpoint() string {
	if m.url != "" {
		return m.url
	}
	return m.URL
}

// Capabilities are the server's capabilities from initialize, opening the
// session if need be; nil for a server without initialize.
func (m *MCP) Capabilities(ctx context.Context) (map[string]json.RawMessage, error) {
	if err := m.start(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.caps, nil
}

// Session describes how the server is spoken to once started: its session
// id ("" when session-less) and the protocol version it agreed to.
func (m *MCP) Session() (id, version string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.session, m.version
}

// Request sends any request in the session (resources/read, prompts/get…)
// and returns its result as sent.
func (m *MCP) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var res json.RawMessage
	if err := m.call(ctx, method, params, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// Name implements Transport.
func (*MCP) Name() string { return "mcp" }

// Health implements Transport: the server answers a tool listing.
func (m *MCP) Health(ctx context.Context) error {
	_, _, err := m.Tools(ctx)
	return err
}

// Tools implements Transport: every page of tools/list, hashed over a
// canonical form (key order never counts; the order of the tools does).
func (m *MCP) Tools(ctx context.Context) ([]Tool, string, error) {
	var all []Tool
	cursor := ""
	for page := 0; ; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := m.call(ctx, "tools/list", params, &res); err != nil {
			return nil, "", err
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" || page > 1000 {
			break
		}
		cursor = res.NextCursor
	}
	h, err := canonicalHash(all)
	return all, h, err
}

// Call implements Transport. A JSON-RPC error is an *RPCError.
func (m *MCP) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	var res Result
	if err := m.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// call makes one request in the session, opening it first. When the server
// says the session is unknown (404: it restarted, or let the session go),
// a new one is opened and the request sent again: a 404 means it did not run.
func (m *MCP) call(ctx context.Context, method string, params, v any) error {
	for attempt := 0; ; attempt++ {
		if err := m.start(ctx); err != nil {
			return err
		}
		m.mu.Lock()
		url, session, version := m.endpoint(), m.session, m.version
		m.mu.Unlock()
		_, err := m.post(ctx, url, method, params, v, session, version)
		var he *HTTPError
		if attempt == 0 && session != "" && errors.As(err, &he) && he.Status == http.StatusNotFound {
			m.mu.Lock()
			if m.session == session {
				m.started, m.session, m.version, m.caps = false, "", "", nil
			}
			m.mu.Unlock()
			continue
		}
		return err
	}
}

// start opens the session once: initialize, then notifications/initialized.
// A server that has no initialize (the ObsiScripta plugin answers -32601, or
// an HTTP 4xx) is spoken to session-less.
func (m *MCP) start(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return nil
	}
	params := map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": m.ClientName, "version": m.ClientVersion},
	}
	var res struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	}
	url := m.endpoint()
	resp, err := m.post(ctx, url, "initialize", params, &res, "", "")
	var re *RPCError
	var he *HTTPError
	switch {
	case err == nil:
		m.session = resp.Header.Get("Mcp-Session-Id")
		m.version = res.ProtocolVersion
		m.caps = res.Capabilities
		if _, err := m.post(ctx, url, "notifications/initialized", nil, nil, m.session, m.version); err != nil {
			return fmt.Errorf("after initialize: %w", err)
		}
	case errors.As(err, &re) && re.Code == -32601,
		errors.As(err, &he) && he.Status >= 400 && he.Status < 500 && he.Status != http.StatusUnauthorized && he.Status != http.StatusForbidden:
		m.session, m.version, m.caps = "", "", nil
	default:
		return err
	}
	m.started = true
	return nil
}

// post sends one message to url (a notification when method starts with
// "notifications/") and decodes its result into v. A request whose ctx ends
// before its answer is cancelled on the server too (notifications/cancelled),
// besides the connection being closed.
func (m *MCP) post(ctx context.Context, url, method string, params, v any, session, version string) (*http.Response, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	notification := strings.HasPrefix(method, "notifications/")
	id := m.nextID.Add(1)
	if !notification {
		msg["id"] = id
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	headers := map[string]string{"Accept": "application/json, text/event-stream"}
	if m.APIKey != "" {
		headers["X-ObsiScripta-Api-Key"] = m.APIKey
	}
	if session != "" {
		headers["Mcp-Session-Id"] = session
	}
	if version != "" {
		headers["Mcp-Protocol-Version"] = version
	}
	resp, data, err := doJSON(ctx, m.HTTP, http.MethodPost, url, body, headers)
	if err != nil && ctx.Err() != nil && !notification && method != "initialize" {
		go m.cancel(context.WithoutCancel(ctx), url, id, session, version)
	}
	if err != nil || notification {
		return resp, err
	}
	answer, err := findAnswer(resp.Header.Get("Content-Type"), data, id)
	if err != nil {
		return resp, fmt.Errorf("%s: %w", method, err)
	}
	if answer.Error != nil {
		return resp, answer.Error
	}
	if v != nil {
		if err := json.Unmarshal(answer.Result, v); err != nil {
			return resp, fmt.Errorf("%s: the result is not what MCP says: %w", method, err)
		}
	}
	return resp, nil
}

// cancel tells the server that request id is no longer wanted.
func (m *MCP) cancel(ctx context.Context, url string, id int64, session, version string) {
	ctx, stop := context.WithTimeout(ctx, 2*time.Second)
	defer stop()
	params := map[string]any{"requestId": id, "reason": "cancelled by the client"}
	_, _ = m.post(ctx, url, "notifications/cancelled", params, nil, session, version)
}

type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// findAnswer reads the answer to request id from a JSON body, or from an
// SSE stream of messages (notifications before it are skipped).
func findAnswer(contentType string, data []byte, id int64) (*rpcAnswer, error) {
	want := fmt.Sprint(id)
	if !strings.HasPrefix(contentType, "text/event-stream") {
		var a rpcAnswer
		if err := json.Unmarshal(data, &a); err != nil {
			return nil, fmt.Errorf("the answer is not JSON: %s", snippet(data))
		}
		return &a, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	var event bytes.Buffer
	check := func() *rpcAnswer {
		defer event.Reset()
		var a rpcAnswer
		if event.Len() == 0 || json.Unmarshal(event.Bytes(), &a) != nil {
			return nil
		}
		if string(bytes.TrimSpace(a.ID)) == want && (a.Result != nil || a.Error != nil) {
			return &a
		}
		return nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if a := check(); a != nil {
				return a, nil
			}
		case strings.HasPrefix(line, "data:"):
			if event.Len() > 0 {
				event.WriteByte('\n')
			}
			event.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if a := check(); a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("the event stream ended without the answer")
}
