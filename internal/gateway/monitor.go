package gateway

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// monitor sees every message and stream of the gateway, for the debug
// listener: it counts them, and sends them to the /debug/stream watchers.
type monitor struct {
	mu       sync.Mutex
	watchers map[*mcphttp.Stream]struct{}
	counts   map[string]*Counts
	conns    map[connKey]time.Time
	// seq numbers the messages seen, so that the page can tell a state
	// snapshot older than the messages it has already counted.
	seq     int64
	stopped bool
	// recent are the last historySize message events, oldest first, for
	// a dashboard opened after them.
	recent [][]byte
}

// History bounds: how many message events are kept, and how much of each
// message (a longer one is kept as its size only).
const (
	historySize       = 100
	historyMessageMax = 4 << 10
)

// Counts are one namespace's messages, each way.
type Counts struct {
	In  int64 `json:"in"`
	Out int64 `json:"out"`
}

type connKey struct{ namespace, session string }

func newMonitor() *monitor {
	return &monitor{watchers: map[*mcphttp.Stream]struct{}{}, counts: map[string]*Counts{}, conns: map[connKey]time.Time{}}
}

// debugMessageMax bounds a message shown whole on the debug stream.
const debugMessageMax = 256 << 10

func (m *monitor) message(direction, ns, session string, msg []byte) {
	m.mu.Lock()
	c := m.counts[ns]
	if c == nil {
		c = &Counts{}
		m.counts[ns] = c
	}
	if direction == "in" {
		c.In++
	} else {
		c.Out++
	}
	m.seq++
	seq, counts := m.seq, *c
	watched := len(m.watchers) > 0
	m.mu.Unlock()
	// Kept for a dashboard opened later: small, whatever the message.
	kept := messageEvent(direction, ns, session, msg, historyMessageMax, seq, counts)
	m.mu.Lock()
	m.recent = append(m.recent, kept)
	if len(m.recent) > historySize {
		m.recent = m.recent[len(m.recent)-historySize:]
	}
	m.mu.Unlock()
	if !watched {
		return
	}
	shown := kept // the same event, for a message small enough for both
	if len(msg) > historyMessageMax {
		shown = messageEvent(direction, ns, session, msg, debugMessageMax, seq, counts)
	}
	m.publish(mcphttp.Event{Name: "message", Data: shown})
}

// messageEvent is a message as the dashboard shows it: whole up to max
// bytes (and valid JSON), else its size.
func messageEvent(direction, ns, session string, msg []byte, max int, seq int64, counts Counts) []byte {
	shown := json.RawMessage(msg)
	if len(msg) > max || !json.Valid(msg) {
		shown, _ = json.Marshal(map[string]any{"truncated": true, "bytes": len(msg)})
	}
	data, _ := json.Marshal(struct {
		Direction string          `json:"direction"`
		Namespace string          `json:"namespace"`
		Session   string          `json:"session"`
		Message   json.RawMessage `json:"message"`
		// Seq and Counts are the dashboard's: the namespace's counts
		// with this message.
		Seq    int64  `json:"seq"`
		Counts Counts `json:"counts"`
	}{direction, ns, session, shown, seq, counts})
	return data
}

func (m *monitor) connection(what, ns, session string) {
	m.mu.Lock()
	k := connKey{ns, session}
	if what == "connected" {
		m.conns[k] = time.Now()
	} else {
		delete(m.conns, k)
	}
	m.mu.Unlock()
	data, _ := json.Marshal(map[string]string{"event": what, "namespace": ns, "session": session})
	m.publish(mcphttp.Event{Name: "connection", Data: data})
}

func (m *monitor) ping() { m.publish(mcphttp.PingEvent(time.Now())) }

func (m *monitor) publish(ev mcphttp.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for w := range m.watchers {
		w.Offer(ev)
	}
}

// watch adds a /debug/stream watcher; false once the gateway stops.
func (m *monitor) watch(st *mcphttp.Stream) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return false
	}
	m.watchers[st] = struct{}{}
	return true
}

func (m *monitor) unwatch(st *mcphttp.Stream) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.watchers, st)
}

func (m *monitor) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopped = true
	for w := range m.watchers {
		w.Kill("the gateway is stopping")
	}
}

// Connection is an open SSE stream, for the dashboard.
type Connection struct {
	Namespace string    `json:"namespace"`
	Session   string    `json:"session"`
	Since     time.Time `json:"since"`
}

// history is the last message events, oldest first.
func (m *monitor) history() []json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]json.RawMessage, len(m.recent))
	for i, e := range m.recent {
		out[i] = e
	}
	return out
}

// snapshot is the counts and connections now, and the number of
// messages seen.
func (m *monitor) snapshot() (map[string]Counts, []Connection, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := map[string]Counts{}
	for ns, c := range m.counts {
		counts[ns] = *c
	}
	conns := make([]Connection, 0, len(m.conns))
	for k, at := range m.conns {
		conns = append(conns, Connection{Namespace: k.namespace, Session: k.session, Since: at})
	}
	return counts, conns, m.seq
}

// nsMonitor is the monitor as one namespace's endpoint sees it.
type nsMonitor struct {
	m  *monitor
	ns string
}

func (n nsMonitor) Message(direction, session string, msg []byte) {
	n.m.message(direction, n.ns, session, msg)
}

func (n nsMonitor) Connection(what, session string) { n.m.connection(what, n.ns, session) }
