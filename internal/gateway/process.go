package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// A command namespace runs any stdio MCP server as a managed subprocess,
// one per namespace, shared by all its client sessions:
//
//   - started on the first message that needs it, in a process group of
//     its own, with its stderr in our log;
//   - initialized once per process by the gateway; each client's own
//     initialize is answered with the server's result, and its
//     notifications/initialized is not passed on (the server had one);
//   - request ids are the gateway's own on the way in (clients reuse
//     theirs), and the client's again on the way out; progress tokens
//     likewise, so progress reaches the session that asked;
//   - when it dies, every request waiting on it is answered with an error,
//     and it is started again after 1 s, 2 s, 4 s … up to 60 s (the wait
//     starts again at 1 s once a process has run for 30 s);
//   - states stopped, starting, running, stopping and error.
//
// This file routes messages between the sessions and the process;
// supervisor.go runs the process.

type processPeer struct {
	ns      Namespace
	version string
	logger  *slog.Logger
	backoff Backoff
	// maxLine bounds a line of the server's output kept whole.
	maxLine int

	mu       sync.Mutex
	state    string
	proc     *proc
	sessions map[*mcphttp.Session]struct{}
	pending  map[int64]*pendingCall
	tokens   map[string]progressRoute
	nextID   int64
	restarts int
	failures int
	lastErr  string
	timer    *time.Timer
	retryAt  time.Time
	closed   bool
}

// pendingCall is a request sent to the process, waiting for its answer.
type pendingCall struct {
	proc    *proc
	session *mcphttp.Session
	id      json.RawMessage // the client's
	reply   func([]byte)
	token   string // the gateway's progress token, if the request had one
	unwatch func() bool
}

// progressRoute is where progress for a token goes.
type progressRoute struct {
	session *mcphttp.Session
	token   json.RawMessage // the client's
}

func newProcessPeer(ns Namespace, version string, backoff Backoff, maxLine int, logger *slog.Logger) *processPeer {
	return &processPeer{ns: ns, version: version, backoff: backoff, maxLine: maxLine, logger: logger.With("namespace", ns.Name),
		state: stateStopped, sessions: map[*mcphttp.Session]struct{}{}, pending: map[int64]*pendingCall{}, tokens: map[string]progressRoute{}}
}

func (p *processPeer) Attach(s *mcphttp.Session) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sessions[s] = struct{}{}
	return nil
}

// detach forgets a session; what it still waits for is cancelled.
func (p *processPeer) Detach(s *mcphttp.Session) {
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

func (p *processPeer) Send(ctx context.Context, s *mcphttp.Session, m *mcphttp.Message, reply func([]byte)) {
	switch {
	case m.IsResponse():
		// The gateway answers the server's requests itself (ping), or
		// refuses them; clients are never asked.
		p.logger.Debug("an answer from a client to no question; dropped", "session", s.ID())
	case m.Method == "initialize":
		pr, err := p.ensure(ctx)
		if err != nil {
			reply(protocol.ErrorAnswer(m.ID, -32603, err.Error()))
			return
		}
		reply(resultResponse(m.ID, pr.initResult))
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
		p.mu.Lock()
		pr := p.running()
		p.mu.Unlock()
		if pr != nil {
			_ = pr.write(m.Raw)
		}
	default:
		p.request(ctx, s, m, reply)
	}
}

// request forwards a request under an id of the gateway's.
func (p *processPeer) request(ctx context.Context, s *mcphttp.Session, m *mcphttp.Message, reply func([]byte)) {
	pr, err := p.ensure(ctx)
	if err != nil {
		reply(protocol.ErrorAnswer(m.ID, -32603, err.Error()))
		return
	}
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	pc := &pendingCall{proc: pr, session: s, id: m.ID, reply: reply}
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
	p.mu.Unlock()
	pc.unwatch = context.AfterFunc(ctx, func() { p.abandon(id, "the client went away") })
	if err := pr.write(raw); err != nil {
		if pc := p.take(id); pc != nil {
			pc.reply(protocol.ErrorAnswer(pc.id, -32603, "the request could not be sent to the server process: "+err.Error()))
		}
	}
}

// routeProgress gives the request's progress token one of the gateway's
// (p.mu held).
func (p *processPeer) routeProgress(raw json.RawMessage, s *mcphttp.Session, id int64) (json.RawMessage, string) {
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
func (p *processPeer) find(s *mcphttp.Session, clientID json.RawMessage) (int64, bool) {
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
func (p *processPeer) take(id int64) *pendingCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc := p.pending[id]
	if pc == nil {
		return nil
	}
	delete(p.pending, id)
	delete(p.tokens, pc.token)
	return pc
}

// abandon gives up a call: the server is told (notifications/cancelled),
// and the client gets no answer (it cancelled, or went away).
func (p *processPeer) abandon(id int64, reason string) {
	pc := p.take(id)
	if pc == nil {
		return
	}
	if pc.unwatch != nil {
		pc.unwatch()
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": reason}})
	_ = pc.proc.write(msg)
	pc.reply(nil)
}

// idPrefix finds the id of an answer too long to keep whole.
var idPrefix = regexp.MustCompile(`^\s*\{(?:\s*"jsonrpc"\s*:\s*"2\.0"\s*,)?\s*"id"\s*:\s*(-?\d+)`)

func (p *processPeer) readStdout(pr *proc, r io.ReadCloser) {
	defer close(pr.outDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, long, err := readLine(br, p.maxLine)
		if len(bytes.TrimSpace(line)) > 0 {
			if long {
				p.tooLong(line)
			} else {
				p.fromServer(pr, line)
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line; past max only its start is kept (long).
func readLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) < max {
			line = append(line, chunk[:min(len(chunk), max-len(line))]...)
		} else {
			long = true
		}
		if len(line) >= max && errors.Is(err, bufio.ErrBufferFull) {
			long = true
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), long, err
		}
	}
}

// tooLong answers the call whose answer was too long to keep, when its id
// can be found at its start.
func (p *processPeer) tooLong(head []byte) {
	m := idPrefix.FindSubmatch(head)
	if m == nil {
		p.logger.Error("the server wrote a line too long to read whole, with no id found at its start; dropped", "max", p.maxLine)
		return
	}
	id, _ := strconv.ParseInt(string(m[1]), 10, 64)
	if pc := p.take(id); pc != nil {
		pc.unwatch()
		pc.reply(mcphttp.LimitResponse(pc.id, -1, int64(p.maxLine)))
	}
}

// fromServer routes one message the server wrote. It reads only the
// members routing needs (gjson), and gives an answer the client's id back
// by replacing that member alone (sjson): decoding and re-encoding whole
// answers, which may be megabytes of note text, cost several times a JSON
// pass (BenchmarkAnswerFromServer in docs/benchmarks.md).
func (p *processPeer) fromServer(pr *proc, line []byte) {
	if !isObject(line) || !gjson.ValidBytes(line) {
		p.logger.Warn("the server wrote a line that is not a JSON object; ignored", "line", truncate(string(line), 200))
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
	case method == "" && string(id) == initID:
		a := initAnswer{result: json.RawMessage(gjson.GetBytes(line, "result").Raw)}
		if e := gjson.GetBytes(line, "error"); e.Exists() {
			a.err = fmt.Errorf("initialize failed: %s", e.Raw)
		}
		select {
		case pr.initAnswer <- a:
		default: // a second answer; the first counts
		}
	case method == "" && id != nil:
		n, err := strconv.ParseInt(string(id), 10, 64)
		pc := p.take(n)
		if err != nil || pc == nil {
			p.logger.Debug("an answer for no waiting request (cancelled, or not ours); dropped", "id", string(id))
			return
		}
		pc.unwatch()
		out, err := setMember(line, []string{"id"}, pc.id)
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
