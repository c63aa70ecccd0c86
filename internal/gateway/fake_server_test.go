package gateway

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test binary doubles as a stdio MCP server for command namespaces
// (GATEWAY_FAKE_SERVER=1), as a real one behaves: one JSON-RPC message per
// line, requests served concurrently. It logs what it saw, a line each, in
// the file FAKE_LOG, so that tests can tell what reached the process.
//
// Tools: echo {text}; crash (exits 3 mid-call); slow {ms} (answers after
// ms, or never if cancelled first); progress (reports progress on the
// request's token, then answers); notify (tools/list_changed, then
// answers); ask (asks the client ping and roots/list, answers with what it
// got); big {bytes}; flood {bytes} (junk on stdout and stderr); child (starts a grandchild that sleeps, answers its
// pid); news (a tools/list_changed for every subscriptions/listen open,
// tagged with its id, as MCP 2026-07-28 has it).
//
// initialize answers the revision asked for, or FAKE_PROTOCOL's if set.
// subscriptions/listen is acknowledged, tagged with its id; with no
// notification asked for it ends at once, else when cancelled.

func TestMain(m *testing.M) {
	switch {
	case os.Getenv("GATEWAY_FAKE_SLEEP") != "":
		time.Sleep(time.Hour)
		return
	case os.Getenv("GATEWAY_FAKE_SERVER") != "":
		fakeServer()
		return
	}
	os.Exit(m.Run())
}

type fake struct {
	out     sync.Mutex
	log     *os.File
	mu      sync.Mutex
	waiting map[string]chan json.RawMessage // the server's own requests
	cancels map[string]chan struct{}
	listens map[string]bool
}

// subscriptionID is the _meta member that names a subscription.
const subscriptionID = "io.modelcontextprotocol/subscriptionId"

func (f *fake) logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintf(f.log, format+"\n", args...)
}

func (f *fake) write(v any) {
	b, _ := json.Marshal(v)
	f.out.Lock()
	defer f.out.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

func fakeServer() {
	logFile, err := os.OpenFile(os.Getenv("FAKE_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	f := &fake{log: logFile, waiting: map[string]chan json.RawMessage{}, cancels: map[string]chan struct{}{}, listens: map[string]bool{}}
	f.logf("start %d", os.Getpid())
	fmt.Fprintf(os.Stderr, "fake server ready, pid %d\n", os.Getpid())
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Text  string `json:"text"`
					MS    int    `json:"ms"`
					Bytes int    `json:"bytes"`
				} `json:"arguments"`
				Meta struct {
					Token json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
				RequestID       json.RawMessage `json:"requestId"`
				ProtocolVersion string          `json:"protocolVersion"`
				Notifications   map[string]any  `json:"notifications"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			f.logf("garbage %s", sc.Text())
			continue
		}
		switch {
		case m.Method == "" && m.ID != nil:
			f.mu.Lock()
			ch := f.waiting[string(m.ID)]
			f.mu.Unlock()
			if ch != nil {
				if m.Error != nil {
					ch <- m.Error
				} else {
					ch <- m.Result
				}
			}
		case m.Method == "initialize":
			f.logf("initialize %s", m.Params.ProtocolVersion)
			f.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": cmp.Or(os.Getenv("FAKE_PROTOCOL"), m.Params.ProtocolVersion),
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}, "serverInfo": map[string]any{"name": "fake", "version": "1"}}})
		case m.Method == "notifications/initialized":
			f.logf("initialized")
		case m.Method == "notifications/cancelled":
			f.logf("cancelled %s", m.Params.RequestID)
			f.mu.Lock()
			if ch := f.cancels[string(m.Params.RequestID)]; ch != nil {
				close(ch)
				delete(f.cancels, string(m.Params.RequestID))
			}
			delete(f.listens, string(m.Params.RequestID))
			f.mu.Unlock()
		case m.Method == "ping":
			f.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
		case m.Method == "tools/list":
			f.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": []map[string]any{
				{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}})
		case m.Method == "subscriptions/listen":
			f.logf("listen %s", m.ID)
			f.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": map[string]any{
				"_meta": map[string]any{subscriptionID: m.ID}, "notifications": m.Params.Notifications}})
			if len(m.Params.Notifications) == 0 {
				f.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"_meta": map[string]any{subscriptionID: m.ID}}})
				continue
			}
			f.mu.Lock()
			f.cancels[string(m.ID)] = make(chan struct{})
			f.listens[string(m.ID)] = true
			f.mu.Unlock()
		case m.Method == "tools/call":
			f.logf("call %s id %s", m.Params.Name, m.ID)
			cancel := make(chan struct{})
			f.mu.Lock()
			f.cancels[string(m.ID)] = cancel
			f.mu.Unlock()
			go f.call(m.ID, m.Params.Name, m.Params.Arguments.Text, m.Params.Arguments.MS, m.Params.Arguments.Bytes, m.Params.Meta.Token, cancel)
		default:
			f.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
		}
	}
	f.logf("eof")
}

func (f *fake) answer(id json.RawMessage, text string) {
	f.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"content": []map[string]any{{"type": "text", "text": text}}}})
}

// ask sends the client a request and waits for its answer.
func (f *fake) ask(id, method string) string {
	ch := make(chan json.RawMessage, 1)
	f.mu.Lock()
	f.waiting[`"`+id+`"`] = ch
	f.mu.Unlock()
	f.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method})
	select {
	case got := <-ch:
		return string(got)
	case <-time.After(5 * time.Second):
		return "no answer"
	}
}

func (f *fake) call(id json.RawMessage, name, text string, ms, size int, token json.RawMessage, cancel chan struct{}) {
	switch name {
	case "echo":
		f.answer(id, text)
	case "crash":
		fmt.Fprintln(os.Stderr, "crashing now")
		os.Exit(3)
	case "slow":
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			f.answer(id, "done")
		case <-cancel:
		}
	case "progress":
		if token != nil {
			f.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": token, "progress": 1, "total": 2}})
		}
		f.answer(id, "progressed")
	case "news":
		f.mu.Lock()
		var ids []string
		for id := range f.listens {
			ids = append(ids, id)
		}
		f.mu.Unlock()
		for _, id := range ids {
			f.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": map[string]any{"_meta": map[string]any{subscriptionID: json.RawMessage(id)}}})
		}
		f.answer(id, fmt.Sprintf("%d listening", len(ids)))
	case "notify":
		f.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		f.answer(id, "notified")
	case "ask":
		f.answer(id, "ping: "+f.ask("srv-ping", "ping")+" roots: "+f.ask("srv-roots", "roots/list"))
	case "big":
		f.answer(id, strings.Repeat("z", size))
	case "flood":
		// size bytes of junk on stdout and on stderr, in 200-byte lines,
		// then one stderr line of size bytes, then a last word.
		junk := strings.Repeat("j", 199) + "\n"
		f.out.Lock()
		for range size / 200 {
			os.Stdout.WriteString(junk)
			os.Stderr.WriteString(junk)
		}
		f.out.Unlock()
		os.Stderr.WriteString(strings.Repeat("L", size) + "\nflood done\n")
		f.answer(id, "flooded")
	case "child":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "GATEWAY_FAKE_SLEEP=1", "GATEWAY_FAKE_SERVER=")
		if err := cmd.Start(); err != nil {
			f.answer(id, err.Error())
			return
		}
		f.answer(id, fmt.Sprint(cmd.Process.Pid))
	default:
		f.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": "no tool " + name}})
	}
}
