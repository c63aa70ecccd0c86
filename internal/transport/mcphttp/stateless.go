package mcphttp

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// MCP 2026-07-28 makes every request stand alone (SEP-2575): it carries its
// revision, client and capabilities in params._meta, and, over HTTP, its
// method and target in headers too (SEP-2243), so that a proxy can route it
// without reading the body. A request whose headers and body disagree is
// refused before it reaches the server, and the HTTP status says what kind
// of error the JSON-RPC one is. Earlier revisions are served as before.
//
// The conformance suite's drafts (0.2.0 alphas) also want a request with
// no _meta refused, and ping and initialize gone (404); the official Go
// SDK's client (1.8.0) still pings without _meta on 2026-07-28 and its
// server serves such requests, so this server does as that SDK does.

// stateless is the first revision with these rules.
const stateless = "2026-07-28"

// JSON-RPC codes of 2026-07-28 (SEP-2575, SEP-2243).
const (
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
)

// Headers of 2026-07-28 requests.
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
	metaVersion  = "io.modelcontextprotocol/protocolVersion"
)

// isStateless reports whether revision (a date) has the 2026-07-28 rules.
func isStateless(revision string) bool { return revision >= stateless }

// refusal2026 is a JSON-RPC error for a request, with its HTTP status.
type refusal2026 struct {
	status int
	obj    protocol.ErrorObject
}

// unsupported is the UnsupportedProtocolVersionError for requested.
func unsupported(requested string) *refusal2026 {
	return &refusal2026{http.StatusBadRequest, protocol.ErrorObject{
		Code:    codeUnsupportedVersion,
		Message: fmt.Sprintf("Unsupported protocol version %q: this server speaks %s", requested, strings.Join(protocol.Revisions, ", ")),
		Data:    map[string]any{"supported": protocol.Revisions, "requested": requested},
	}}
}

func mismatch(format string, args ...any) *refusal2026 {
	return &refusal2026{http.StatusBadRequest, protocol.ErrorObject{Code: codeHeaderMismatch, Message: "Header mismatch: " + fmt.Sprintf(format, args...)}}
}

// checkStateless checks a request sent with MCP-Protocol-Version revision
// (2026-07-28 or later): its Mcp-Method and Mcp-Name headers against its
// body, and its _meta revision against the header. Header values are
// compared without surrounding white space (RFC 9110 §5.5).
func checkStateless(h http.Header, revision string, m *Message) *refusal2026 {
	if !m.isRequest() {
		return nil
	}
	method := strings.TrimSpace(h.Get(headerMethod))
	switch {
	case method == "":
		return mismatch("the %s header is required in MCP %s requests; set it to the body's method, %q", headerMethod, revision, m.Method)
	case method != m.Method:
		return mismatch("the %s header says %q, the body's method is %q", headerMethod, method, m.Method)
	}
	if member := nameMember(m.Method); member != "" {
		name := strings.TrimSpace(h.Get(headerName))
		body := gjson.GetBytes(m.Raw, "params."+member)
		switch {
		case name == "":
			return mismatch("the %s header is required for %s in MCP %s; set it to params.%s", headerName, m.Method, revision, member)
		case body.Type == gjson.String && name != body.Str:
			return mismatch("the %s header says %q, the body's params.%s is %q", headerName, name, member, body.Str)
		}
	}
	// A request without the _meta revision is served as under earlier
	// revisions, as the official Go SDK's server does (its own client
	// sends ping so); one that declares a revision must agree with the
	// header and be one this server speaks.
	declared := gjson.GetBytes(m.Raw, "params._meta."+strings.ReplaceAll(metaVersion, ".", `\.`))
	switch {
	case declared.Type != gjson.String || declared.Str == "":
	case declared.Str != revision:
		return mismatch("the MCP-Protocol-Version header says %s, params._meta's %s says %s", revision, metaVersion, declared.Str)
	case !slices.Contains(protocol.Revisions, declared.Str):
		return unsupported(declared.Str)
	}
	return nil
}

// nameMember is the member of params that Mcp-Name repeats for method.
func nameMember(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	}
	return ""
}

// errorStatus is the HTTP status of a 2026-07-28 error answer (SEP-2575):
// 404 for a method not found, 400 for invalid params, a missing client
// capability or an unsupported revision; 0 to keep 200.
func errorStatus(answer []byte) int {
	switch gjson.GetBytes(answer, "error.code").Int() {
	case -32601:
		return http.StatusNotFound
	case -32602, codeMissingCapability, codeUnsupportedVersion, codeHeaderMismatch:
		return http.StatusBadRequest
	}
	return 0
}

// writeRefusal answers id with r as JSON.
func writeRefusal(w http.ResponseWriter, id []byte, r *refusal2026) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_, _ = w.Write(append(r.obj.Answer(id), '\n'))
}

// openAlone opens the session of one 2026-07-28 request that names none.
// Such a request stands alone (SEP-2575), so it gets a session of its own
// for as long as it lasts: what it causes — progress, a
// subscriptions/listen's acknowledgement and the notifications that
// follow — reaches its POST, and no other client's, and two clients'
// subscriptions never share one filter. ctx, for the request, ends with
// the client's or with the endpoint; done ends the session.
func (e *Endpoint) openAlone(parent context.Context) (s *Session, ctx context.Context, done func(), err error) {
	s = e.newSession(newSessionID(), false)
	s.alone = true
	if err := e.peer.Attach(s); err != nil {
		return nil, nil, nil, err
	}
	e.mu.Lock()
	e.alone[s] = struct{}{}
	e.mu.Unlock()
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(s.ctx, cancel)
	return s, ctx, func() {
		stop()
		cancel()
		e.mu.Lock()
		delete(e.alone, s)
		e.mu.Unlock()
		e.end(s)
	}, nil
}

// cancelAlone hands a notifications/cancelled that names no session to
// every request served alone: the request it names may be one of them
// (the client cannot name its session, as it has none).
func (e *Endpoint) cancelAlone(ctx context.Context, msgs []*Message) {
	for _, m := range msgs {
		if m.Method != "notifications/cancelled" {
			continue
		}
		e.mu.Lock()
		all := make([]*Session, 0, len(e.alone))
		for s := range e.alone {
			all = append(all, s)
		}
		e.mu.Unlock()
		for _, s := range all {
			e.dispatch(ctx, s, m, nil)
		}
	}
}
