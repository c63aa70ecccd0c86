package mcphttp_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// pushPeer answers every request with an empty result, and lets a test
// send messages of its own to every session attached.
type pushPeer struct {
	mu       sync.Mutex
	sessions map[*mcphttp.Session]bool
}

func (p *pushPeer) Attach(s *mcphttp.Session) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions == nil {
		p.sessions = map[*mcphttp.Session]bool{}
	}
	p.sessions[s] = true
	return nil
}

func (p *pushPeer) Detach(s *mcphttp.Session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.sessions, s)
}

func (p *pushPeer) Send(_ context.Context, _ *mcphttp.Session, m *mcphttp.Message, reply func([]byte)) {
	if m.ID != nil {
		reply([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`))
	}
}

func (p *pushPeer) push(msg []byte) {
	p.mu.Lock()
	all := make([]*mcphttp.Session, 0, len(p.sessions))
	for s := range p.sessions {
		all = append(all, s)
	}
	p.mu.Unlock()
	for _, s := range all {
		s.Send(msg)
	}
}

// openStream opens a legacy SSE stream over a raw connection and reads its
// headers and first event only: from then on its client reads nothing.
func openStream(t *testing.T, addr string) (net.Conn, int) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return conn, resp.StatusCode
}

// TestClientThatDoesNotRead: a stream's client that stops reading while
// answers keep coming (64 MiB of them) is cut off once StreamBytes wait
// for it, the messages offered meanwhile are never held beyond that, and
// its connection slot is free again for the next client.
func TestClientThatDoesNotRead(t *testing.T) {
	t.Parallel()
	peer := &pushPeer{}
	conns := make(chan struct{}, 1)
	var logs strings.Builder
	var logMu sync.Mutex
	ep, err := mcphttp.New(peer, mcphttp.Options{MessagePath: "/mcp/message", Conns: conns, ConnsSetting: "the test's one slot",
		StreamBytes: 4 << 20, WriteTimeout: 5 * time.Second, Logger: testLogger(&logs, &logMu)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(ep)
	t.Cleanup(func() { ts.Close(); ep.Close() })
	addr := strings.TrimPrefix(ts.URL, "http://")
	if _, status := openStream(t, addr); status != 200 {
		t.Fatalf("the first stream: %d", status)
	}
	if _, status := openStream(t, addr); status != http.StatusServiceUnavailable {
		t.Fatalf("a second stream while the slot is taken: %d, want 503", status)
	}
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 1<<20) + `"}}`)
	for range 64 {
		peer.push(msg) // never blocks: a full stream is cut instead
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(conns) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the slot of the stream that does not read was never freed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, status := openStream(t, addr); status != 200 {
		t.Errorf("a new stream after the cut: %d, want 200", status)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "the client is not reading its stream") && !strings.Contains(logs.String(), "stopped reading") {
		t.Errorf("the cut was not logged:\n%s", logs.String())
	}
}

// syncWriter serializes writes to a builder shared with the test.
type syncWriter struct {
	b  *strings.Builder
	mu *sync.Mutex
}

func (w syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func testLogger(b *strings.Builder, mu *sync.Mutex) *slog.Logger {
	return slog.New(slog.NewTextHandler(syncWriter{b, mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestSessionCap: past MaxSessions, a new session takes the place of the
// one unused longest, whose client is then told why its session is gone;
// when every session is busy (a stream open) a new one is refused with
// 503; thousands of initializes keep the table at its bound.
func TestSessionCap(t *testing.T) {
	t.Parallel()
	ep, err := mcphttp.New(&pushPeer{}, mcphttp.Options{MaxSessions: 3, SessionsSetting: "limits.max_sessions"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(ep)
	t.Cleanup(func() { ts.Close(); ep.Close() })
	url := ts.URL + "/mcp"
	open := func() string {
		t.Helper()
		resp, body := post(t, url, initBody)
		id := resp.Header.Get(mcphttp.HeaderSession)
		if resp.StatusCode != 200 || id == "" {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		return id
	}
	ping := func(id string) (int, string) {
		resp, body := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, mcphttp.HeaderSession, id)
		return resp.StatusCode, body
	}
	first, second, third := open(), open(), open()
	if status, _ := ping(second); status != 200 { // second and third are now newer than first
		t.Fatalf("ping: %d", status)
	}
	fourth := open()
	if status, body := ping(first); status != 404 || !strings.Contains(body, "SESSION_EVICTED") || !strings.Contains(body, "at most 3 are kept (limits.max_sessions)") {
		t.Errorf("the evicted session: %d %s", status, body)
	}
	for _, id := range []string{second, third, fourth} {
		if status, body := ping(id); status != 200 {
			t.Errorf("session %s after the eviction: %d %s", id, status, body)
		}
	}
	// Every session busy: each with its stream open.
	for _, id := range []string{second, third, fourth} {
		ctx, cancel := context.WithCancel(t.Context())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set(mcphttp.HeaderSession, id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET stream of %s: %v %v", id, resp, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
	}
	if resp, body := post(t, url, initBody); resp.StatusCode != 503 || !strings.Contains(body, "TOO_MANY_SESSIONS") {
		t.Errorf("initialize with every session busy: %d %s", resp.StatusCode, body)
	}
	if n := len(ep.Sessions()); n != 3 {
		t.Errorf("%d sessions open, want 3", n)
	}
}

// TestSessionFlood: initializes without end never hold more than
// MaxSessions sessions.
func TestSessionFlood(t *testing.T) {
	t.Parallel()
	ep, err := mcphttp.New(&pushPeer{}, mcphttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(ep)
	t.Cleanup(func() { ts.Close(); ep.Close() })
	for i := range 2000 {
		if resp, body := post(t, ts.URL, initBody); resp.StatusCode != 200 {
			t.Fatalf("initialize %d: %d %s", i, resp.StatusCode, body)
		}
	}
	if n := len(ep.Sessions()); n != mcphttp.DefaultMaxSessions {
		t.Errorf("%d sessions open after 2000 initializes, want %d", n, mcphttp.DefaultMaxSessions)
	}
}

// TestSlowBody: a POST whose body stalls is answered once BodyTimeout
// passes, and the place it held (MaxPosts) goes to the next POST, which
// had waited for it.
func TestSlowBody(t *testing.T) {
	t.Parallel()
	ep, err := mcphttp.New(&pushPeer{}, mcphttp.Options{BodyTimeout: time.Second, MaxPosts: 1, PostWait: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	conn, url := serveAndDial(t, ep, 20*time.Second)
	// 1,000 bytes promised, 10 sent.
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
	second := make(chan int, 1)
	go func() {
		resp, _ := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		second <- resp.StatusCode
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the stalled POST got no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("the stalled POST: %d, want 400", resp.StatusCode)
	}
	select {
	case status := <-second:
		if status != 200 {
			t.Errorf("the POST that waited: %d", status)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the POST that waited was never served")
	}
}

// TestStreamCutIsLogged: a stream cut for a client that fell behind says
// so in the log at the level a user sees, also when its writer was
// between events rather than blocked in a write (it then only sees the
// stream end, and logged nothing a user would see).
func TestStreamCutIsLogged(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	var mu sync.Mutex
	st := mcphttp.NewStream(testLogger(&b, &mu), 10)
	if !st.Offer(mcphttp.Event{Name: "message", Data: []byte("12345")}) {
		t.Fatal("an event within the bound was refused")
	}
	if st.Offer(mcphttp.Event{Name: "message", Data: []byte("1234567890")}) {
		t.Fatal("an event past the bound was queued")
	}
	select {
	case <-st.Done():
	default:
		t.Fatal("the stream was not ended")
	}
	why, killed := st.Killed()
	mu.Lock()
	log := b.String()
	mu.Unlock()
	if !killed || !strings.Contains(why, "not reading its stream") || !strings.Contains(log, "level=INFO") || !strings.Contains(log, "not reading its stream") {
		t.Errorf("killed %v (%q); log:\n%s", killed, why, log)
	}
}

// TestStopWritesWhatIsQueued: a server that stops ends each stream only
// once the messages queued on it are written; its writer saw the end and
// the queue at once, and took either (the gateway's TestStopFinishesCalls
// lost an answer about once in a hundred runs so).
func TestStopWritesWhatIsQueued(t *testing.T) {
	t.Parallel()
	peer := &pushPeer{}
	ep, err := mcphttp.New(peer, mcphttp.Options{MessagePath: "/mcp/message"})
	if err != nil {
		t.Fatal(err)
	}
	conn, _ := serveAndDial(t, ep, 30*time.Second)
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the stream: %v %v", resp, err)
	}
	body := bufio.NewReader(resp.Body)
	for { // the endpoint event: the stream is attached
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data:") {
			break
		}
	}
	const n = 200
	for i := range n {
		peer.push([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":%d}}`, i)))
	}
	ep.Stop()
	seen := map[string]bool{} // the peer may hand a message to the stream twice (its session and the shared one)
	for {
		line, err := body.ReadString('\n')
		if _, data, ok := strings.Cut(line, `"params":{"data":`); ok && strings.Contains(line, "notifications/message") {
			seen[strings.TrimSpace(data)] = true
		}
		if err != nil {
			break
		}
	}
	if len(seen) != n {
		t.Errorf("%d of the %d messages queued at the stop reached the client", len(seen), n)
	}
}

// serveAndDial serves ep on a loopback listener and returns a raw
// connection to it, with deadline d for everything the test does on it,
// and the server's URL; both are closed when the test ends.
func serveAndDial(t *testing.T, ep *mcphttp.Endpoint, d time.Duration) (net.Conn, string) {
	t.Helper()
	ts := httptest.NewServer(ep)
	t.Cleanup(func() { ts.Close(); ep.Close() })
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(ts.URL, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(d))
	return conn, ts.URL
}
