package gateway

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// Command namespaces, with the test binary as the stdio server (see
// fake_server_test.go): one process per namespace, started on demand,
// initialized once and replayed per session, ids and progress tokens
// mapped, crashes answered and restarted, cancellation passed on.

// fakeNamespace is a gateway.yaml namespace running the fake server; the
// fake's log is returned.
func fakeNamespace(t *testing.T, name string) (yaml, log string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log = filepath.Join(t.TempDir(), "fake.log")
	return fmt.Sprintf("  %s:\n    command: %q\n    env: {GATEWAY_FAKE_SERVER: \"1\", FAKE_LOG: %q}\n", name, exe, log), log
}

// fakeLog is what the fake saw, a line each.
func fakeLog(t *testing.T, file string) []string {
	t.Helper()
	data, _ := os.ReadFile(file)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// waitLog waits until the fake's log has a line starting with prefix.
func waitLog(t *testing.T, file, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, l := range fakeLog(t, file) {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the fake never logged %q: %q", prefix, fakeLog(t, file))
	return ""
}

func count(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

var fastBackoff = Options{Backoff: Backoff{Initial: 100 * time.Millisecond, Max: 400 * time.Millisecond}}

// TestCommandInitializeOnce: no process until a message needs one; one
// process and one initialize for every session; each session's initialize
// answered with the server's result under its own id; the same request id
// from two sessions at once, each answered to its own.
func TestCommandInitializeOnce(t *testing.T) {
	ns, log := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "namespaces:\n"+ns, fastBackoff)
	if _, body := do(t, http.MethodGet, r.api+"/health/fake", ""); body != `{"namespace":"fake","status":"no subprocess"}`+"\n" {
		t.Errorf("health before use: %s", body)
	}
	var ids []string
	for range 3 {
		resp, body := do(t, http.MethodPost, r.api+"/mcp/fake", strings.Replace(initialize, `"id":1`, `"id":"init-x"`, 1))
		if !strings.Contains(body, `"id":"init-x"`) || !strings.Contains(body, `"serverInfo":{"name":"fake"`) {
			t.Fatalf("initialize: %s", body)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
		do(t, http.MethodPost, r.api+"/mcp/fake", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", ids[len(ids)-1])
	}
	var wg sync.WaitGroup
	answers := make([]string, len(ids))
	for i, id := range ids {
		wg.Go(func() {
			_, answers[i] = do(t, http.MethodPost, r.api+"/mcp/fake", call(1, "echo", fmt.Sprintf(`{"text":"session %d"}`, i)), "Mcp-Session-Id", id)
		})
	}
	wg.Wait()
	for i, a := range answers {
		if !strings.Contains(a, `"id":1`) || !strings.Contains(a, fmt.Sprintf("session %d", i)) {
			t.Errorf("session %d got %s", i, a)
		}
	}
	lines := fakeLog(t, log)
	if count(lines, "start") != 1 || count(lines, "initialize "+gatewayProtocol) != 1 || count(lines, "initialized") != 1 {
		t.Errorf("the process saw %q", lines)
	}
	pid, _ := strconv.Atoi(strings.TrimPrefix(lines[0], "start "))
	if _, body := do(t, http.MethodGet, r.api+"/health/fake", ""); body != fmt.Sprintf(`{"namespace":"fake","status":"running","pid":%d}`+"\n", pid) {
		t.Errorf("health: %s (pid %d)", body, pid)
	}
}

// TestCommandCrash: a process that dies mid-call answers every request it
// held with an error, never loses one; it is started again after the
// back-off, and serves again.
func TestCommandCrash(t *testing.T) {
	ns, log := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "namespaces:\n"+ns, fastBackoff)
	a, _ := openSSE(t, r.api+"/mcp/fake")
	end := a.next(t)
	do(t, http.MethodPost, r.api+string(end.data), call(10, "slow", `{"ms":60000}`))
	waitLog(t, log, "call slow")
	resp, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(11, "crash", `{}`))
	if resp.StatusCode != 200 || !strings.Contains(body, `"id":11`) || !strings.Contains(body, "exited before answering") || !strings.Contains(body, "crashing now") {
		t.Errorf("the crashing call: %d %s", resp.StatusCode, body)
	}
	if ev := a.next(t); !strings.Contains(string(ev.data), `"id":10`) || !strings.Contains(string(ev.data), "exited before answering") {
		t.Errorf("the call waiting on the stream: %s", ev.data)
	}
	// Within the back-off: refused at once, saying when it comes back.
	if _, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(12, "echo", `{"text":"x"}`)); !strings.Contains(body, "started again in") && !strings.Contains(body, `"text":"x"`) {
		t.Errorf("during the back-off: %s", body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(13, "echo", `{"text":"back"}`))
		if strings.Contains(body, `"text":"back"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never served again: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	lines := fakeLog(t, log)
	if count(lines, "start") != 2 || count(lines, "initialize ") != 2 {
		t.Errorf("the process log: %q", lines)
	}
	st := r.g.State()
	if p := st.Namespaces[0].Process; p == nil || p.Restarts != 1 || p.State != stateRunning || !strings.Contains(p.LastExit, "exit status 3") {
		t.Errorf("process state %+v", p)
	}
}

func TestBackoff(t *testing.T) {
	var got []string
	for n := 1; n <= 8; n++ {
		got = append(got, DefaultBackoff.wait(n).String())
	}
	if strings.Join(got, " ") != "1s 2s 4s 8s 16s 32s 1m0s 1m0s" {
		t.Errorf("back-off %v", got)
	}
}

// TestCommandCancel: a client's notifications/cancelled, and a client
// gone, reach the process under its own request id; the cancelled call
// gets no answer.
func TestCommandCancel(t *testing.T) {
	ns, log := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "namespaces:\n"+ns, fastBackoff)
	a, _ := openSSE(t, r.api+"/mcp/fake")
	end := a.next(t)
	do(t, http.MethodPost, r.api+string(end.data), call(77, "slow", `{"ms":60000}`))
	id := strings.TrimPrefix(waitLog(t, log, "call slow"), "call slow id ")
	do(t, http.MethodPost, r.api+string(end.data), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77,"reason":"changed my mind"}}`)
	waitLog(t, log, "cancelled "+id)
	// The cancelled call's answer, if the server sent one, would come
	// before the answer to a call made after the cancellation.
	a.nextAfter(t, func() { do(t, http.MethodPost, r.api+string(end.data), call(78, "echo", `{"text":"after"}`)) }, `"id":78`)
}

// TestCommandRequestTimeout: a request the server does not answer within
// limits.request_timeout is answered with an error that names the limit,
// and the server is told to cancel it; the namespace serves on.
func TestCommandRequestTimeout(t *testing.T) {
	ns, log := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "limits:\n  request_timeout: 1s\nnamespaces:\n"+ns, fastBackoff)
	resp, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(5, "slow", `{"ms":60000}`))
	if resp.StatusCode != 200 || !strings.Contains(body, `"id":5`) || !strings.Contains(body, "did not answer within 1s (limits.request_timeout)") {
		t.Errorf("a request past its deadline: %d %s", resp.StatusCode, body)
	}
	id := strings.TrimPrefix(waitLog(t, log, "call slow"), "call slow id ")
	waitLog(t, log, "cancelled "+id)
	if _, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(6, "echo", `{"text":"still here"}`)); !strings.Contains(body, "still here") {
		t.Errorf("after the timeout: %s", body)
	}
}

// TestCommandFloodsItsOutput: a server that writes megabytes of junk on
// stdout and stderr (and a stderr line of megabytes) is answered as usual,
// and the gateway's log takes a bounded part of it, saying how much it
// left out; stderr is read on past the long line.
func TestCommandFloodsItsOutput(t *testing.T) {
	ns, _ := fakeNamespace(t, "fake")
	var logs obsidiantest.Buffer
	r := startGatewayWith(t, "namespaces:\n"+ns, Options{Backoff: fastBackoff.Backoff, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	resp, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(9, "flood", `{"bytes":4000000}`))
	if resp.StatusCode != 200 || !strings.Contains(body, "flooded") {
		t.Fatalf("the flooding call: %d %.300s", resp.StatusCode, body)
	}
	// Its last words come after the long line: they are read, and say how
	// it ended.
	if _, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(10, "crash", `{}`)); !strings.Contains(body, "crashing now") {
		t.Errorf("stderr was not read past its long line: %.300s", body)
	}
	if n := len(logs.String()); n > 1<<20 {
		t.Errorf("8 MB of junk became %d bytes of log", n)
	}
	if !strings.Contains(logs.String(), "lines were left out") {
		t.Errorf("the log does not say what it left out:\n%.2000s", logs.String())
	}
}

// TestCommandProgressAndNews: progress goes to the session that asked,
// with its own token; a notification of the server's goes to every
// session; the server's ping is answered by the gateway, its roots/list
// refused.
func TestCommandProgressAndNews(t *testing.T) {
	ns, _ := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "namespaces:\n"+ns, fastBackoff)
	open := func() (string, *sse) {
		resp, _ := do(t, http.MethodPost, r.api+"/mcp/fake", initialize)
		id := resp.Header.Get("Mcp-Session-Id")
		s, _ := openSSE(t, r.api+"/mcp/fake", "Mcp-Session-Id", id)
		return id, s
	}
	idA, streamA := open()
	_, streamB := open()
	withToken := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"tok-a"}}}`
	if _, body := do(t, http.MethodPost, r.api+"/mcp/fake", withToken, "Mcp-Session-Id", idA); !strings.Contains(body, "progressed") {
		t.Errorf("progress call: %s", body)
	}
	if ev := streamA.next(t); !strings.Contains(string(ev.data), `"progressToken":"tok-a"`) {
		t.Errorf("progress on A: %s", ev.data)
	}
	// B got nothing of A's progress: its next event is the news below.
	do(t, http.MethodPost, r.api+"/mcp/fake", call(6, "notify", `{}`), "Mcp-Session-Id", idA)
	for _, s := range []*sse{streamA, streamB} {
		if ev := s.next(t); !strings.Contains(string(ev.data), "notifications/tools/list_changed") {
			t.Errorf("news: %s", ev.data)
		}
	}
	_, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(7, "ask", `{}`), "Mcp-Session-Id", idA)
	var res struct {
		Result struct{ Content []struct{ Text string } }
	}
	_ = json.Unmarshal([]byte(body), &res)
	if len(res.Result.Content) != 1 || !strings.HasPrefix(res.Result.Content[0].Text, "ping: {} roots: {") || !strings.Contains(body, "-32601") {
		t.Errorf("the server's requests: %s", body)
	}
}

// TestCommandCannotStart: a command that cannot start answers its
// requests with why, and health says error.
func TestCommandCannotStart(t *testing.T) {
	r := startGatewayWith(t, "namespaces:\n  gone:\n    command: /nonexistent/server\n", fastBackoff)
	_, body := do(t, http.MethodPost, r.api+"/mcp/gone", call(1, "echo", `{}`))
	if !strings.Contains(body, `"id":1`) || !strings.Contains(body, "/nonexistent/server cannot be started") {
		t.Errorf("answer: %s", body)
	}
	if _, body := do(t, http.MethodGet, r.api+"/health/gone", ""); !strings.Contains(body, `"status":"error"`) {
		t.Errorf("health: %s", body)
	}
}

// TestCommandAnswerTooLong: an answer over max_response is an error for
// its request, whole or too long to keep.
func TestCommandAnswerTooLong(t *testing.T) {
	ns, _ := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "limits: {max_response: 4KB}\nnamespaces:\n"+ns, fastBackoff)
	// 3920 bytes of text: a line under the limit from the server, over it
	// once the client's long id is back in; 100000: too long to keep.
	for _, size := range []int{3920, 100000} {
		id := `"a-client-id-long-enough-to-cross-the-limit"`
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"big","arguments":{"bytes":%d}}}`, id, size)
		resp, got := do(t, http.MethodPost, r.api+"/mcp/fake", body)
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(got, `"id":`+id) || !strings.Contains(got, "limits.max_response") {
			t.Errorf("%d bytes: %d %.300s", size, resp.StatusCode, got)
		}
	}
	if _, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(1, "echo", `{"text":"still fine"}`)); !strings.Contains(body, "still fine") {
		t.Errorf("after: %s", body)
	}
}

// TestSetMember: the gateway's id (or progress token) is put in place of
// the member alone; every other byte of the message stays as the server
// or the client wrote it.
func TestSetMember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		path     []string
		v        string
		want     string // "" for an error
	}{
		{"answer", `{"jsonrpc":"2.0","id":7,"result":{"id":7,"text":"<a> & \u00e9 \"q\""}}`, []string{"id"}, `"c-1"`,
			`{"jsonrpc":"2.0","id":"c-1","result":{"id":7,"text":"<a> & \u00e9 \"q\""}}`},
		{"spacing kept", "{ \"id\" : 7 ,\n \"result\": [1, 2] }", []string{"id"}, `3`, "{ \"id\" : 3 ,\n \"result\": [1, 2] }"},
		{"id added", `{"jsonrpc":"2.0","method":"x"}`, []string{"id"}, `1`, ""}, // checked below: parses with id 1
		{"nested token", `{"id":1,"method":"tools/call","params":{"_meta":{"progressToken":"mine"},"name":"t"}}`, []string{"params", "_meta", "progressToken"}, `"gw-1"`,
			`{"id":1,"method":"tools/call","params":{"_meta":{"progressToken":"gw-1"},"name":"t"}}`},
		{"progress notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"gw-1","progress":1}}`, []string{"params", "progressToken"}, `7`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`},
		{"not an object", `[1,2]`, []string{"id"}, `1`, "error"},
		{"a string", `"id"`, []string{"id"}, `1`, "error"},
	}
	for _, tt := range tests {
		got, err := setMember(json.RawMessage(tt.in), tt.path, json.RawMessage(tt.v))
		switch {
		case tt.want == "error":
			if err == nil {
				t.Errorf("%s: %s, want an error", tt.name, got)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want == "":
			var m struct {
				ID     int    `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(got, &m) != nil || m.ID != 1 || m.Method != "x" {
				t.Errorf("%s: %s", tt.name, got)
			}
		case string(got) != tt.want:
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// modern are the headers of an MCP 2026-07-28 request of method.
func modern(method string) []string {
	return []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
}

// listen is a 2026-07-28 subscriptions/listen with id, for the tools list.
func listen(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
}

// TestCommandSubscriptions: through a command namespace, on MCP
// 2026-07-28, each client's subscriptions/listen is acknowledged under its
// own id, on its own POST; the news the server tags for a subscription
// reaches only the client that listens, under its id; a listen is not
// bound by limits.request_timeout; a client that goes away has its listen
// cancelled in the server; a listen that ends answers under the client's
// id, its result's subscription id the client's too.
func TestCommandSubscriptions(t *testing.T) {
	ns, log := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "limits:\n  request_timeout: 1s\nnamespaces:\n"+ns, fastBackoff)
	url := r.api + "/mcp/fake"
	ids := []string{`"abc"`, `1234`}
	streams := make([]*sse, len(ids))
	for i, id := range ids {
		s, resp := postSSE(t, url, listen(id), modern("subscriptions/listen")...)
		if s == nil {
			t.Fatalf("listen %s: %d", id, resp.StatusCode)
		}
		streams[i] = s
		ack := s.next(t)
		if !strings.Contains(string(ack.data), `"method":"notifications/subscriptions/acknowledged"`) ||
			!strings.Contains(string(ack.data), `"io.modelcontextprotocol/subscriptionId":`+id) {
			t.Fatalf("listen %s acknowledged with %s", id, ack.data)
		}
	}
	// Past the request timeout: a call that takes longer is given up...
	if _, body := do(t, http.MethodPost, url, call(5, "slow", `{"ms":3000}`), append(modern("tools/call"), "Mcp-Name", "slow")...); !strings.Contains(body, "limits.request_timeout") {
		t.Fatalf("slow call: %s", body)
	}
	// ...and each listen still gets its news, under its own id, alone.
	if _, body := do(t, http.MethodPost, url, call(6, "news", `{}`), append(modern("tools/call"), "Mcp-Name", "news")...); !strings.Contains(body, "2 listening") {
		t.Fatalf("news: %s", body)
	}
	for i, id := range ids {
		ev := streams[i].next(t)
		if !strings.Contains(string(ev.data), `"method":"notifications/tools/list_changed"`) ||
			!strings.Contains(string(ev.data), `"io.modelcontextprotocol/subscriptionId":`+id+`}`) {
			t.Errorf("listen %s got %s", id, ev.data)
		}
	}
	// The first client goes: its listen is cancelled in the server, and
	// the news reaches the other alone.
	first := strings.TrimPrefix(waitLog(t, log, "listen "), "listen ") // the server's id of the first
	streams[0].close()
	gone := waitLog(t, log, "cancelled "+first)
	if _, body := do(t, http.MethodPost, url, call(7, "news", `{}`), append(modern("tools/call"), "Mcp-Name", "news")...); !strings.Contains(body, "1 listening") {
		t.Fatalf("news after one left: %s (%s)", body, gone)
	}
	if ev := streams[1].next(t); !strings.Contains(string(ev.data), `"io.modelcontextprotocol/subscriptionId":1234}`) {
		t.Errorf("the second listen got %s", ev.data)
	}
	// A listen for nothing ends at once, its answer the client's.
	s, _ := postSSE(t, url, strings.Replace(listen(`"x-9"`), `{"toolsListChanged":true}`, `{}`, 1), modern("subscriptions/listen")...)
	if ack := s.next(t); !strings.Contains(string(ack.data), `"io.modelcontextprotocol/subscriptionId":"x-9"`) {
		t.Errorf("empty listen acknowledged with %s", ack.data)
	}
	if end := s.next(t); !strings.Contains(string(end.data), `"id":"x-9"`) || !strings.Contains(string(end.data), `"result":{"_meta":{"io.modelcontextprotocol/subscriptionId":"x-9"}}`) {
		t.Errorf("empty listen ended with %s", end.data)
	}
}

// TestCommandNegotiates: every client's initialize is answered with the
// revision a server would give it: the one it asked for where the process
// speaks that one or a later one, the process's own otherwise (a newer one
// than the process speaks, 2026-07-28, or one unknown).
func TestCommandNegotiates(t *testing.T) {
	for _, c := range []struct {
		process string
		asked   map[string]string
	}{
		{"", map[string]string{"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2024-11-05": "2024-11-05", "2026-07-28": "2025-11-25", "1999-01-01": "2025-11-25"}},
		{"2025-06-18", map[string]string{"2025-11-25": "2025-06-18", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2026-07-28": "2025-06-18", "later": "2025-06-18"}},
	} {
		ns, log := fakeNamespace(t, "fake")
		if c.process != "" {
			ns = strings.Replace(ns, `GATEWAY_FAKE_SERVER: "1"`, `GATEWAY_FAKE_SERVER: "1", FAKE_PROTOCOL: "`+c.process+`"`, 1)
		}
		r := startGatewayWith(t, "namespaces:\n"+ns, fastBackoff)
		for asked, want := range c.asked {
			_, body := do(t, http.MethodPost, r.api+"/mcp/fake", strings.Replace(initialize, `"2025-06-18"`, `"`+asked+`"`, 1))
			if !strings.Contains(body, `"protocolVersion":"`+want+`"`) {
				t.Errorf("process on %q, client asking %s: %s, want %s", c.process, asked, body, want)
			}
		}
		// A 2026-07-28 request has no initialize: refused as every face
		// refuses it, and never passed on to initialize the process again.
		modernInit := strings.Replace(initialize, `"clientInfo"`, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"clientInfo"`, 1)
		if resp, body := do(t, http.MethodPost, r.api+"/mcp/fake", modernInit, modern("initialize")...); resp.StatusCode != http.StatusNotFound ||
			!strings.Contains(body, `"code":-32601,"message":"\"initialize\" was removed in protocol version 2026-07-28"`) {
			t.Errorf("a 2026-07-28 initialize: %d %s", resp.StatusCode, body)
		}
		if lines := fakeLog(t, log); count(lines, "initialize "+gatewayProtocol) != 1 {
			t.Errorf("the process saw %q", lines)
		}
	}
}
