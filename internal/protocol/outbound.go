package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// pump is the one reader of the session's notifications and requests to
// the client, so that flush can tell when everything sent before an
// answer has been delivered.
func (s *Session) pump() {
	for {
		select {
		case n := <-s.notes:
			s.notify(n)
		case m := <-s.outbox:
			s.deliver(m)
		case ack := <-s.flushes:
			for drained := false; !drained; {
				select {
				case n := <-s.notes:
					s.notify(n)
				default:
					drained = true
				}
			}
			close(ack)
		case <-s.done:
			return
		}
	}
}

// flush returns once every notification sent so far has been delivered.
// mcp-go queues a request's notifications (progress, the acknowledgement
// of subscriptions/listen) on a channel, so without this they could reach
// the client after the request's answer.
func (s *Session) flush() {
	ack := make(chan struct{})
	select {
	case s.flushes <- ack:
	case <-s.done:
		return
	}
	select {
	case <-ack:
	case <-s.done:
	}
}

func (s *Session) notify(n mcp.JSONRPCNotification) {
	msg, err := json.Marshal(n)
	if err != nil {
		s.core.opts.Logger.Error("a notification could not be encoded", "method", n.Method, "err", err)
		return
	}
	s.deliver(msg)
}

func (s *Session) deliver(msg []byte) {
	if s.lost.Load() {
		return
	}
	if err := s.sink(msg); err != nil && !s.lost.Swap(true) && s.opts.Lost != nil {
		s.opts.Lost(err)
	}
}

// errClosed is a request to the client that its session's end cut short.
var errClosed = errors.New("the client's session ended")

// ask sends a request to the client and decodes its answer into result.
func (s *Session) ask(ctx context.Context, method string, params, result any) error {
	id := strconv.FormatInt(s.asked.Add(1), 10)
	key := idKey(json.RawMessage(id))
	ch := make(chan *envelope, 1)
	s.mu.Lock()
	s.asks[key] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.asks, key)
		s.mu.Unlock()
	}()
	msg, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  any             `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, json.RawMessage(id), method, params})
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	select {
	case s.outbox <- msg:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return errClosed
	}
	select {
	case e := <-ch:
		if e.Error != nil {
			var obj ErrorObject
			_ = json.Unmarshal(e.Error, &obj)
			return fmt.Errorf("the client answered %s with an error: %s (%d)", method, obj.Message, obj.Code)
		}
		return json.Unmarshal(e.Result, result)
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return errClosed
	}
}

// answered routes the client's answer to the request ask sent.
func (s *Session) answered(key string, e *envelope) {
	s.mu.Lock()
	ch := s.asks[key]
	s.mu.Unlock()
	if ch == nil {
		s.core.opts.Logger.Debug("an answer from the client to no question; dropped", "session", s.id)
		return
	}
	select {
	case ch <- e:
	default: // answered twice: the first answer stands
	}
}

// mcp-go's ClientSession and the extensions it looks for.

func (s *Session) SessionID() string { return s.id }

func (s *Session) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }

func (s *Session) Initialize() { s.initialized.Store(true) }

func (s *Session) Initialized() bool { return s.initialized.Load() }

func (s *Session) SetLogLevel(level mcp.LoggingLevel) { s.level.Store(level) }

func (s *Session) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.level.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

func (s *Session) GetClientInfo() mcp.Implementation {
	info, _ := s.info.Load().(mcp.Implementation)
	return info
}

func (s *Session) SetClientInfo(info mcp.Implementation) { s.info.Store(info) }

func (s *Session) GetClientCapabilities() mcp.ClientCapabilities {
	caps, _ := s.caps.Load().(mcp.ClientCapabilities)
	return caps
}

func (s *Session) SetClientCapabilities(caps mcp.ClientCapabilities) { s.caps.Store(caps) }

// ProtocolVersion is the revision negotiated by initialize, or "".
func (s *Session) ProtocolVersion() string {
	v, _ := s.revision.Load().(string)
	return v
}

func (s *Session) SetProtocolVersion(v string) { s.revision.Store(v) }

// askingSession is a Session whose transport carries requests to the
// client: mcp-go asks for elicitation and roots only of sessions that
// have these methods.
type askingSession struct{ *Session }

func (a askingSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := a.ask(ctx, string(mcp.MethodElicitationCreate), req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (a askingSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := a.ask(ctx, string(mcp.MethodListRoots), nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

var (
	_ server.SessionWithLogging         = (*Session)(nil)
	_ server.SessionWithClientInfo      = (*Session)(nil)
	_ server.SessionWithProtocolVersion = (*Session)(nil)
	_ server.SessionWithElicitation     = askingSession{}
	_ server.SessionWithRoots           = askingSession{}
)
