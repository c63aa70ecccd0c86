package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// `obsidian-mcp serve` through real clients, on a real loopback listener:
// the official Go SDK's streamable client and the TypeScript SDK's
// StreamableHTTPClientTransport run every tool as they do over stdio, and
// the ObsiScripta stdio bridge's session-less JSON posts are answered.

var servingURL = regexp.MustCompile(`url=(https?://\S+/mcp)`)

// served is a running `obsidian-mcp serve`.
type served struct {
	url    string
	match  []string
	cmd    *exec.Cmd
	stderr *obsidiantest.Buffer
	exited chan struct{} // closed when the process has exited
	err    error         // its exit, once exited is closed
}

// serve starts `obsidian-mcp serve` on a free loopback port and waits
// until it listens.
func serve(t *testing.T, args []string, env ...string) *served {
	t.Helper()
	return startListening(t, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), env, servingURL)
}

// startListening runs the binary with args and waits for the log line that ready
// matches: url is its first group, match all of them.
func startListening(t *testing.T, args, env []string, ready *regexp.Regexp) *served {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	stderr := &obsidiantest.Buffer{}
	cmd.Stderr = io.MultiWriter(stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, stderr: stderr, exited: make(chan struct{})}
	go func() { s.err = cmd.Wait(); pw.Close(); close(s.exited) }()
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case s.match = <-found:
		s.url = s.match[1]
	case <-s.exited:
		t.Fatalf("%s exited before listening: %v\n%s", args[0], s.err, stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not listen within 30 s:\n%s", args[0], stderr)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
		}
	})
	return s
}

// httpRequest sends body to url as JSON, with headers besides (which may
// replace Content-Type), and returns the answer and its whole body.
func httpRequest(t *testing.T, method, url, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

// stop asks the process to stop (terminate) and waits for a clean exit.
func (s *served) stop(t *testing.T) {
	t.Helper()
	if err := terminate(s.cmd.Process); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
		if s.err != nil {
			t.Errorf("serve exited with %v after SIGTERM:\n%s", s.err, s.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("serve did not stop within a minute of SIGTERM:\n%s", s.stderr)
	}
}

func TestHTTPGoSDKClient(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	s := serve(t, nil, "OBSIDIAN_BIN="+f.Bin)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-http-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.stderr)
	}
	call := func(st step) outcome {
		return goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: st.Tool, Arguments: st.Arguments}))
	}
	got := []outcome{call(everyTool[0])}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	checkToolList(t, names)
	for _, st := range everyTool[1:] {
		got = append(got, call(st))
	}
	checkSteps(t, f, "go-sdk", got)
	if v := cs.InitializeResult(); v == nil || v.ServerInfo.Version != "9.9.9-test" || v.ProtocolVersion != "2026-07-28" {
		t.Errorf("initialize result %+v", v)
	}
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "obsidian-mcp://note/Notes/Seed.md"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "# Seed") {
		t.Errorf("read resource over HTTP: %+v, %v", rr, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	s.stop(t)
	if t.Failed() {
		t.Logf("server stderr:\n%s", s.stderr)
	}
}

// TestHTTPElicitedPermanentDelete: over Streamable HTTP, the server's
// elicitation request reaches the Go SDK on the stream of the POST that
// caused it, and the client's answer, POSTed back, reaches the call.
func TestHTTPElicitedPermanentDelete(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	s := serve(t, nil, "OBSIDIAN_BIN="+f.Bin)
	e := &elicitor{}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-http-test", Version: "1.0.0"}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	// The SDK negotiates 2026-07-28: the question comes in the call's
	// result and the SDK calls again with the answer. The 2025 way, an
	// elicitation/create request on the POST's stream, is below.
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.stderr)
	}
	defer cs.Close()
	e.check(t, f, cs, func() string { return s.stderr.String() })

	// A 2025-06-18 session that can elicit: the call's POST turns into an
	// SSE stream carrying elicitation/create; the answer, POSTed in the
	// session, lets the call finish on that stream.
	f.WriteNote("Older.md", "x")
	post := func(body string, headers map[string]string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", s.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	resp.Body.Close()
	h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-06-18"}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, h).Body.Close()
	call := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_delete_note","arguments":{"path":"Older.md","permanent":true}}}`, h)
	defer call.Body.Close()
	if ct := call.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("the call answered %s, want an SSE stream", ct)
	}
	events := bufio.NewScanner(call.Body)
	events.Buffer(nil, 1<<20)
	next := func() string {
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				return data
			}
		}
		t.Fatalf("the call's stream ended: %v", events.Err())
		return ""
	}
	var ask struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal([]byte(next()), &ask); err != nil || ask.Method != "elicitation/create" {
		t.Fatalf("want elicitation/create first, got %+v %v", ask, err)
	}
	answer := post(`{"jsonrpc":"2.0","id":`+string(ask.ID)+`,"result":{"action":"accept","content":{"confirm":true}}}`, h)
	answer.Body.Close()
	if answer.StatusCode != http.StatusAccepted {
		t.Errorf("POSTing the answer: %d", answer.StatusCode)
	}
	if result := next(); !strings.Contains(result, `"id":2`) || !strings.Contains(result, `"permanent":true`) {
		t.Errorf("the call's answer: %s", result)
	}
	if _, ok := f.Note("Older.md"); ok {
		t.Error("the note is still there after a confirmed delete")
	}
	s.stop(t)
}

func TestHTTPTypeScriptSDKClient(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	s := serve(t, nil, "OBSIDIAN_BIN="+f.Bin)
	runTSCalls(t, f, "typescript-sdk", map[string]any{"url": s.url})
	if t.Failed() {
		t.Logf("server stderr:\n%s", s.stderr)
	}
}

// TestHTTPSessionlessJSON: the ObsiScripta stdio bridge posts tools/list
// and tools/call with Accept: application/json only, no initialize and no
// session, and reads one JSON answer each; it hashes the tool order, which
// must not change between calls. A typed failure keeps its code.
func TestHTTPSessionlessJSON(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	s := serve(t, []string{"--backend", "native", "--vault-path", f.Vault})
	post := func(body string) map[string]any {
		t.Helper()
		resp, data := httpRequest(t, http.MethodPost, s.url, body, map[string]string{"Accept": "application/json"})
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("status %d, %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
		}
		var m map[string]any
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil {
			t.Fatalf("not one JSON answer: %q", data)
		}
		return m
	}
	order := func() string {
		res := post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
		var names []string
		for _, tool := range res["result"].(map[string]any)["tools"].([]any) {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
		checkToolList(t, names)
		return strings.Join(names, ",")
	}
	if a, b := order(), order(); a != b {
		t.Errorf("the tool order changed between two lists:\n%s\n%s", a, b)
	}
	res := post(`{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"A.md"}}}`)
	if text := res["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "alpha" {
		t.Errorf("read = %v", res)
	}
	res = post(`{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Missing.md"}}}`)
	e, _ := res["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32003) || e["data"].(map[string]any)["errorCode"] != "FILE_NOT_FOUND" {
		t.Errorf("a missing note over HTTP: %v, want -32003 FILE_NOT_FOUND", res)
	}
	s.stop(t)
}

// TestHTTPStopFinishesCalls: SIGTERM while a call runs lets it finish (here
// the CLI hangs until the 2 s timeout, so the call ends in TIMEOUT): its
// client gets the answer, not a broken connection, and the server then
// exits cleanly.
func TestHTTPStopFinishesCalls(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"file"}})
	fixture := "OBSIDIAN_BIN=" + f.Bin
	s := serve(t, []string{"--backend", "cli", "--timeout", "2s"}, fixture)
	answer := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"A.md"}}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		answer <- string(data)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(f.Calls()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s.stop(t)
	if got := <-answer; !strings.Contains(got, `"errorCode":"TIMEOUT"`) {
		t.Errorf("the call in flight got %q, want its TIMEOUT answer", got)
	}
	if !strings.Contains(s.stderr.String(), "finishing the calls in flight in_flight=1") {
		t.Errorf("the stop did not wait for the call:\n%s", s.stderr)
	}
}

// TestHTTPProtocolVersions: a client of each protocol version from
// 2024-11-05 to 2025-11-25 initializes, gets its version back and a
// session, lists the tools in it, and ends it with DELETE; a 2026-07-28
// client discovers the same five revisions and calls a tool with no
// session; a revision the server does not speak is a 400.
func TestHTTPProtocolVersions(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	s := serve(t, []string{"--backend", "native", "--vault-path", f.Vault})
	send := func(method string, headers map[string]string, body string) (*http.Response, string) {
		t.Helper()
		h := map[string]string{"Accept": "application/json, text/event-stream"}
		maps.Copy(h, headers)
		resp, data := httpRequest(t, method, s.url, body, h)
		return resp, string(data)
	}
	for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		resp, body := send("POST", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"v","version":"1"}}}`)
		session := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != 200 || session == "" || !strings.Contains(body, `"protocolVersion":"`+version+`"`) {
			t.Errorf("%s initialize: %d %q %.200s", version, resp.StatusCode, session, body)
			continue
		}
		h := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": version}
		if resp, _ := send("POST", h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
			t.Errorf("%s initialized: %d", version, resp.StatusCode)
		}
		if resp, body := send("POST", h, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != 200 || !strings.Contains(body, "obsidian_read_note") {
			t.Errorf("%s tools/list: %d %.200s", version, resp.StatusCode, body)
		}
		if resp, _ := send("DELETE", h, ""); resp.StatusCode != 200 {
			t.Errorf("%s DELETE: %d", version, resp.StatusCode)
		}
		if resp, _ := send("POST", h, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); resp.StatusCode != 404 {
			t.Errorf("%s after DELETE: %d, want 404", version, resp.StatusCode)
		}
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"v","version":"1"}}`
	modern := func(method, name string) map[string]string {
		h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}
	if resp, body := send("POST", modern("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`); resp.StatusCode != 200 ||
		!strings.Contains(body, `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`) {
		t.Errorf("2026-07-28 server/discover: %d %.300s", resp.StatusCode, body)
	}
	if resp, body := send("POST", modern("tools/call", "obsidian_list_files"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_list_files","arguments":{},`+meta+`}}`); resp.StatusCode != 200 || !strings.Contains(body, `"resultType":"complete"`) {
		t.Errorf("2026-07-28 tools/call: %d %.300s", resp.StatusCode, body)
	}
	// SEP-2243 and SEP-2575 over HTTP: headers that disagree with the body
	// are 400 with -32020 under the request's id; an unknown method 404.
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"obsidian_list_files","arguments":{},` + meta + `}}`
	for _, c := range []struct {
		headers map[string]string
		body    string
		status  int
		want    string
	}{
		{map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, call, 400, `"id":3,"error":{"code":-32020,"message":"Header mismatch: the Mcp-Method header is required`},
		{modern("tools/list", ""), call, 400, `"code":-32020,"message":"Header mismatch: the Mcp-Method header says \"tools/list\"`},
		{modern("tools/call", ""), call, 400, `Mcp-Name header is required for tools/call`},
		{modern("tools/call", "obsidian_read_note"), call, 400, `the Mcp-Name header says \"obsidian_read_note\"`},
		{modern("tools/call", "  obsidian_list_files "), call, 200, `"resultType":"complete"`},
		{modern("nope/nope", ""), `{"jsonrpc":"2.0","id":4,"method":"nope/nope","params":{` + meta + `}}`, 404, `"id":4,"error":{"code":-32601`},
		{modern("server/discover", ""), `{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}`, 400, `"code":-32020`},
	} {
		if resp, body := send("POST", c.headers, c.body); resp.StatusCode != c.status || !strings.Contains(body, c.want) {
			t.Errorf("2026-07-28 %v: %d %.300s, want %d with %s", c.headers, resp.StatusCode, body, c.status, c.want)
		}
	}
	for _, bad := range []string{"1999-01-01", "garbage"} {
		if resp, body := send("POST", map[string]string{"Mcp-Protocol-Version": bad}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"id":1,"error":{"code":-32022`) || !strings.Contains(body, `"requested":"`+bad+`"`) {
			t.Errorf("MCP-Protocol-Version %s: %d %s, want 400", bad, resp.StatusCode, body)
		}
	}
	s.stop(t)
}
