package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// A command namespace runs any stdio MCP server as a managed subprocess,
// one per namespace, shared by all its client sessions. Its supervisor
// (supervisor.go) runs the process; its commandPeer, here, routes the
// messages between the sessions and that process:
//
//   - each client's initialize is answered with the result of the
//     gateway's own (the process is initialized once), and its
//     notifications/initialized is not passed on;
//   - request ids are the gateway's own on the way in (clients reuse
//     theirs), and the client's again on the way out; progress tokens
//     likewise, so progress reaches the session that asked;
//   - when the process dies, every request waiting on it is answered with
//     an error; a cancelled request, or one whose client went away, is
//     cancelled in the server too;
//   - the server's requests to the client are answered by the gateway
//     (ping) or refused: clients are never asked.
type commandPeer struct {
	sup    *supervisor
	logger *slog.Logger
	// timeout bounds each request (limits.request_timeout; 0: none).
	timeout time.Duration
	// guard refuses the calls a client may not make.
	guard auth.Guard

	mu       sync.Mutex
	sessions map[*mcphttp.Session]struct{}
	pending  map[int64]*pendingCall
	tokens   map[string]progressRoute
	nextID   int64
}

// pendingCall is a request sent to the process, waiting for its answer.
type pendingCall struct {
	proc    *proc
	session *mcphttp.Session
	id      json.RawMessage // the client's
	reply   func([]byte)
	token   string // the gateway's progress token, if the request had one
	// listen marks a subscriptions/listen (MCP 2026-07-28): it lasts as
	// long as the client listens, and what the server sends for it
	// carries its id, which the client must see as its own.
	listen bool
	// unwatch and timer end the watch on the client's context and the
	// request's deadline (release).
	unwatch func() bool
	timer   *time.Timer
}

// release stops what watches a call that is no longer pending.
func (pc *pendingCall) release() {
	if pc.unwatch != nil {
		pc.unwatch()
	}
	if pc.timer != nil {
		pc.timer.Stop()
	}
}

// progressRoute is where progress for a token goes.
type progressRoute struct {
	session *mcphttp.Session
	token   json.RawMessage // the client's
}

func newCommandPeer(guard auth.Guard, ns Namespace, version string, backoff Backoff, maxLine int, timeout time.Duration, logger *slog.Logger) *commandPeer {
	logger = logger.With("namespace", ns.Name)
	p := &commandPeer{logger: logger, timeout: timeout, guard: guard, sessions: map[*mcphttp.Session]struct{}{}, pending: map[int64]*pendingCall{}, tokens: map[string]progressRoute{}}
	p.sup = newSupervisor(ns, version, backoff, maxLine, logger, p)
	return p
}

func (p *commandPeer) health() Health   { return p.sup.health() }
func (p *commandPeer) process() Process { return p.sup.process() }
func (p *commandPeer) close()           { p.sup.close() }

func (p *commandPeer) Attach(s *mcphttp.Session) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sessions[s] = struct{}{}
	return nil
}

// detach forgets a session; what it still waits for is cancelled.
func (p *commandPeer) Detach(s *mcphttp.Session) {
	p.mu.Lock()
	delete(p.sessions, s)
	var gone []int64
	for id, pc := range p.pending {
		if pc.session == s {
			gone = append(gone, id)
		}
	}
	p.mu.Unlock()
	for _, id := range gone {
		p.abandon(id, "the client's session ended")
	}
}

func (p *commandPeer) Send(ctx context.Context, s *mcphttp.Session, m *mcphttp.Message, reply func([]byte)) {
	switch {
	case m.IsResponse():
		// The gateway answers the server's requests itself (ping), or
		// refuses them; clients are never asked.
		p.logger.Debug("an answer from a client to no question; dropped", "session", s.ID())
	case m.Method == "initialize" && gjson.GetBytes(m.Raw, "params._meta."+versionKey).String() >= "2026-07-28":
		// A request of 2026-07-28 or later, which has no initialize:
		// answered as the protocol core answers it on every other face.
		reply(protocol.ErrorAnswer(m.ID, -32601, `"initialize" was removed in protocol version 2026-07-28`))
	case m.Method == "initialize":
		pr, err := p.sup.ensure(ctx)
		if err != nil {
			reply(protocol.ErrorAnswer(m.ID, -32603, err.Error()))
			return
		}
		reply(resultResponse(m.ID, negotiate(pr.initResult, gjson.GetBytes(m.Raw, "params.protocolVersion").String())))
	case m.Method == "notifications/initialized":
		// The process had its own, once.
	case m.Method == "notifications/cancelled":
		var n struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
				Reason    string          `json:"reason"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &n) == nil {
			if id, ok := p.find(s, n.Params.RequestID); ok {
				p.abandon(id, n.Params.Reason)
			}
		}
	case m.IsNotification():
		// Not worth starting a process for.
		if pr := p.sup.running(); pr != nil {
			_ = pr.write(m.Raw)
		}
	case m.Method == "tools/call":
		if no := p.guard.Check(ctx, m.Tool); no != nil {
			reply(protocol.ErrorAnswer(m.ID, -32005, "this namespace runs another server, whose tools may change things, and this client is read-only ("+no.Rule+"); nothing was called"))
			return
		}
		p.request(ctx, s, m, reply)
	default:
		p.request(ctx, s, m, reply)
	}
}

// request forwards a request under an id of the gateway's.
func (p *commandPeer) request(ctx context.Context, s *mcphttp.Session, m *mcphttp.Message, reply func([]byte)) {
	pr, err := p.sup.ensure(ctx)
	if err != nil {
		reply(protocol.ErrorAnswer(m.ID, -32603, err.Error()))
		return
	}
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	pc := &pendingCall{proc: pr, session: s, id: m.ID, reply: reply, listen: m.Method == "subscriptions/listen"}
	raw, err := setMember(m.Raw, []string{"id"}, json.RawMessage(strconv.FormatInt(id, 10)))
	if err == nil && bytes.Contains(m.Raw, []byte(`"progressToken"`)) {
		raw, pc.token = p.routeProgress(raw, s, id)
	}
	if err != nil {
		p.mu.Unlock()
		reply(protocol.ErrorAnswer(m.ID, -32600, "Invalid Request: "+err.Error()))
		return
	}
	p.pending[id] = pc
	// Both run on their own goroutines, and find the call (p.mu) only
	// once it is fully recorded.
	pc.unwatch = context.AfterFunc(ctx, func() { p.abandon(id, "the client went away") })
	if p.timeout > 0 && !pc.listen {
		pc.timer = time.AfterFunc(p.timeout, func() { p.expire(id) })
	}
	p.mu.Unlock()
	if err := pr.write(raw); err != nil {
		if pc := p.take(id); pc != nil {
			pc.reply(protocol.ErrorAnswer(pc.id, -32603, "the request could not be sent to the server process: "+err.Error()))
		}
	}
}

// routeProgress gives the request's progress token one of the gateway's
// (p.mu held).
func (p *commandPeer) routeProgress(raw json.RawMessage, s *mcphttp.Session, id int64) (json.RawMessage, string) {
	client := gjson.GetBytes(raw, "params._meta.progressToken")
	if !client.Exists() {
		return raw, ""
	}
	token := fmt.Sprintf("gateway-progress-%d", id)
	out, err := setMember(raw, []string{"params", "_meta", "progressToken"}, json.RawMessage(strconv.Quote(token)))
	if err != nil {
		return raw, ""
	}
	p.tokens[token] = progressRoute{session: s, token: json.RawMessage(client.Raw)}
	return out, token
}

// find is the gateway's id of a session's request.
func (p *commandPeer) find(s *mcphttp.Session, clientID json.RawMessage) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, pc := range p.pending {
		if pc.session == s && bytes.Equal(bytes.TrimSpace(pc.id), bytes.TrimSpace(clientID)) {
			return id, true
		}
	}
	return 0, false
}

// take removes a pending call.
func (p *commandPeer) take(id int64) *pendingCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc := p.pending[id]
	if pc == nil {
		return nil
	}
	delete(p.pending, id)
	delete(p.tokens, pc.token)
	pc.release()
	return pc
}

// abandon gives up a call: the server is told (notifications/cancelled),
// and the client gets no answer (it cancelled, or went away).
func (p *commandPeer) abandon(id int64, reason string) {
	if pc := p.cancel(id, reason); pc != nil {
		pc.reply(nil)
	}
}

// expire gives up a call past limits.request_timeout: the server is told,
// and the client gets an error saying so.
func (p *commandPeer) expire(id int64) {
	pc := p.cancel(id, "the gateway's request_timeout passed")
	if pc == nil {
		return
	}
	p.logger.Warn("a request got no answer within limits.request_timeout; cancelled", "timeout", p.timeout)
	pc.reply(protocol.ErrorAnswer(pc.id, -32603, fmt.Sprintf("the %s server did not answer within %s (limits.request_timeout); it was asked to cancel the request", p.sup.ns.Name, p.timeout)))
}

// cancel takes a pending call and tells the server to cancel it.
func (p *commandPeer) cancel(id int64, reason string) *pendingCall {
	pc := p.take(id)
	if pc == nil {
		return nil
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": reason}})
	_ = pc.proc.write(msg)
	return pc
}

// idPrefix finds the id of an answer too long to keep whole.
var idPrefix = regexp.MustCompile(`^\s*\{(?:\s*"jsonrpc"\s*:\s*"2\.0"\s*,)?\s*"id"\s*:\s*(-?\d+)`)

// tooLong answers the call whose answer was too long to keep, when its id
// can be found at its start.
func (p *commandPeer) tooLong(head []byte) {
	m := idPrefix.FindSubmatch(head)
	if m == nil {
		p.logger.Error("the server wrote a line too long to read whole, with no id found at its start; dropped", "max", p.sup.maxLine)
		return
	}
	id, _ := strconv.ParseInt(string(m[1]), 10, 64)
	if pc := p.take(id); pc != nil {
		pc.reply(mcphttp.LimitResponse(pc.id, -1, int64(p.sup.maxLine)))
	}
}

// fromServer routes one message the server wrote. It reads only the
// members routing needs (gjson), and gives an answer the client's id back
// by replacing that member alone (sjson): decoding and re-encoding whole
// answers, which may be megabytes of note text, cost several times a JSON
// pass (BenchmarkAnswerFromServer in docs/benchmarks.md).
func (p *commandPeer) fromServer(pr *proc, line []byte) {
	if !isObject(line) || !gjson.ValidBytes(line) {
		p.sup.logs.log(p.logger, slog.LevelWarn, "the server wrote a line that is not a JSON object; ignored", "line", truncate(string(line), 200))
		return
	}
	got := gjson.GetManyBytes(line, "id", "method")
	var id json.RawMessage
	if got[0].Exists() {
		id = json.RawMessage(got[0].Raw)
	}
	method := ""
	if got[1].Type == gjson.String {
		method = got[1].Str
	}
	switch {
	case method == "" && id != nil:
		n, err := strconv.ParseInt(string(id), 10, 64)
		pc := p.take(n)
		if err != nil || pc == nil {
			p.logger.Debug("an answer for no waiting request (cancelled, or not ours); dropped", "id", string(id))
			return
		}
		out, err := setMember(line, []string{"id"}, pc.id)
		if err == nil && pc.listen {
			out, err = ownSubscription(out, "result._meta", pc.id)
		}
		if err != nil {
			out = protocol.ErrorAnswer(pc.id, -32603, "the server's answer could not be read: "+err.Error())
		}
		pc.reply(out)
	case id != nil:
		// A request of the server's: the gateway declared no client
		// capabilities, so only ping is answered.
		if method == "ping" {
			_ = pr.write(resultResponse(id, json.RawMessage(`{}`)))
		} else {
			_ = pr.write(protocol.ErrorAnswer(id, -32601, "Method not found: the obsidian-mcp gateway does not pass "+method+" on to clients"))
		}
	case method == "notifications/progress":
		token := gjson.GetBytes(line, "params.progressToken").String()
		p.mu.Lock()
		route, ok := p.tokens[token]
		p.mu.Unlock()
		if !ok {
			return
		}
		if out, err := setMember(line, []string{"params", "progressToken"}, route.token); err == nil {
			route.session.Send(out)
		}
	case gjson.GetBytes(line, "params._meta."+subscriptionKey).Exists():
		// For one subscriptions/listen: its acknowledgement, or news it
		// asked for. It goes to the session that listens, under its id.
		n, err := strconv.ParseInt(gjson.GetBytes(line, "params._meta."+subscriptionKey).Raw, 10, 64)
		p.mu.Lock()
		pc := p.pending[n]
		p.mu.Unlock()
		if err != nil || pc == nil || !pc.listen {
			p.logger.Debug("a notification for no subscription open here; dropped", "method", method)
			return
		}
		if out, err := ownSubscription(line, "params._meta", pc.id); err == nil {
			pc.session.Send(out)
		}
	default:
		// Everyone's news: list changes, log messages, resource updates.
		p.mu.Lock()
		all := make([]*mcphttp.Session, 0, len(p.sessions))
		for s := range p.sessions {
			all = append(all, s)
		}
		p.mu.Unlock()
		for _, s := range all {
			s.Send(line)
		}
	}
}

// negotiate is the process's initialize result as this client's: the
// revision it asked for where the process speaks that one or a later one
// (as a server answers initialize), the process's own otherwise. The
// process was initialized once, with the newest revision that has
// initialize; every client gets the answer a server of its own would give.
func negotiate(result json.RawMessage, asked string) json.RawMessage {
	own := gjson.GetBytes(result, "protocolVersion").String()
	if asked == own || !protocol.Supported(asked) || asked > gatewayProtocol || asked > own {
		return result
	}
	if out, err := sjson.SetBytes(result, "protocolVersion", asked); err == nil {
		return out
	}
	return result
}

// subscriptionKey and versionKey are the _meta members naming a
// subscription and a request's revision (MCP 2026-07-28), escaped as
// gjson/sjson path members.
var (
	subscriptionKey = strings.ReplaceAll("io.modelcontextprotocol/subscriptionId", ".", `\.`)
	versionKey      = strings.ReplaceAll("io.modelcontextprotocol/protocolVersion", ".", `\.`)
)

// ownSubscription gives the subscription id in msg's member at meta (a
// gjson path) the client's id, if it has one.
func ownSubscription(msg []byte, meta string, id json.RawMessage) ([]byte, error) {
	path := meta + "." + subscriptionKey
	if !gjson.GetBytes(msg, path).Exists() {
		return msg, nil
	}
	return sjson.SetRawBytes(msg, path, id)
}

// resultResponse is a JSON-RPC answer to id with result.
func resultResponse(id, result json.RawMessage) []byte {
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", id, result})
	return out
}

// setMember sets obj's member at path (objects all the way; keys without
// gjson's path characters), keeping every other byte of obj as it is.
func setMember(obj json.RawMessage, path []string, v json.RawMessage) (json.RawMessage, error) {
	if !isObject(obj) {
		return nil, errors.New("not a JSON object")
	}
	return sjson.SetRawBytes(obj, strings.Join(path, "."), v)
}

// isObject reports whether msg starts as a JSON object.
func isObject(msg []byte) bool {
	msg = bytes.TrimLeft(msg, " \t\r\n")
	return len(msg) > 0 && msg[0] == '{'
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// exited answers every call still waiting on a process that ended.
func (p *commandPeer) exited(pr *proc, why string) int {
	p.mu.Lock()
	var orphans []*pendingCall
	for id, pc := range p.pending {
		if pc.proc == pr {
			orphans = append(orphans, pc)
			delete(p.pending, id)
			delete(p.tokens, pc.token)
			pc.release()
		}
	}
	p.mu.Unlock()
	for _, pc := range orphans {
		pc.reply(protocol.ErrorAnswer(pc.id, -32603, why))
	}
	return len(orphans)
}

// drain waits for the requests in flight, until ctx ends.
func (p *commandPeer) drain(ctx context.Context) {
	for {
		p.mu.Lock()
		n := len(p.pending)
		p.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
