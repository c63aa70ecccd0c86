package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// The abuse cases of issue 28, each against a real server process on
// loopback: its peak resident memory (the kernel's VmHWM) must stay under
// the ceiling docs/limits.md documents for it. The figures are logged
// (go test -v -run TestSoak ./cmd/obsidian-mcp) and written in that page.
// Each case is bounded in count and time; none sleeps to prove anything.

// peakRSS is a process's peak resident memory, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// ceiling checks a case's peak against its documented ceiling, and logs
// both.
func ceiling(t *testing.T, what string, pid int, base, limit int64) {
	t.Helper()
	peak := peakRSS(t, pid)
	t.Logf("%s: peak RSS %d MB (idle %d MB), ceiling %d MB", what, peak>>20, base>>20, limit>>20)
	if peak > limit {
		t.Errorf("%s: peak RSS %d MB, over its ceiling of %d MB", what, peak>>20, limit>>20)
	}
}

const mb = 1 << 20

// soakVault is a vault with one note of about size bytes.
func soakVault(t *testing.T, size int) string {
	t.Helper()
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Big.md"), []byte(strings.Repeat("Obsidian note text. ", size/20)), 0o600); err != nil {
		t.Fatal(err)
	}
	return vault
}

// TestSoakServeStalledBodies: 100 connections that send headers promising
// 4 MiB and then stall, without the key, and 100 more with it that send
// 1 MiB of their body and stall: serve holds no body without the key, and
// at most its 32 slots' worth with it.
func TestSoakServeStalledBodies(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	const key = "soak-test-key-0123456789"
	s := serve(t, []string{"--backend", "native", "--vault-path", soakVault(t, 1000)}, "OBSIDIAN_MCP_API_KEY="+key)
	pid := s.cmd.Process.Pid
	var conns []net.Conn
	var mu sync.Mutex
	defer func() {
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		s.stop(t)
	}()
	base := peakRSS(t, pid)
	addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
	stall := func(withKey bool, sent int) {
		var wg sync.WaitGroup
		for range 100 {
			wg.Go(func() {
				conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				conns = append(conns, conn)
				mu.Unlock()
				keyLine := ""
				if withKey {
					keyLine = "X-Api-Key: " + key + "\r\n"
				}
				fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n", keyLine, 4<<20)
				_, _ = conn.Write([]byte(strings.Repeat(" ", sent)))
			})
		}
		wg.Wait()
	}
	stall(false, 0)
	// Every keyless one is answered 401 from its headers.
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(s.stderr.String(), "status=401") < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 100 keyless requests answered", strings.Count(s.stderr.String(), "status=401"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	ceiling(t, "serve, 100 keyless stalled 4 MiB bodies", pid, base, 60*mb)
	stall(true, 1<<20)
	// The 32 slots read their bodies up to the stall; the rest wait.
	ceiling(t, "serve, 100 keyed bodies stalled after 1 MiB", pid, base, 120*mb)
}

// TestSoakGatewayClientThatDoesNotRead: a gateway SSE client that never
// reads asks for 40 answers of 9 MB: its stream is cut once twice
// max_response waits for it, and memory stays bounded.
func TestSoakGatewayClientThatDoesNotRead(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	// The note read whole as a resource: an answer of 9 MB, under
	// max_response (10 MiB), so it is queued.
	g := gateway(t, "namespaces:\n  notes:\n    vault_path: "+soakVault(t, 9*mb)+"\n")
	defer g.stop(t)
	pid := g.cmd.Process.Pid
	base := peakRSS(t, pid)
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(g.url, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	fmt.Fprintf(conn, "GET /mcp/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
	br := bufio.NewReader(conn)
	var endpoint string
	for endpoint == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = v
		}
	}
	// From here on the client reads nothing.
	for i := range 40 {
		resp, body := httpRequest(t, http.MethodPost, g.url+endpoint, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"obsidian-mcp://note/Big.md"}}`, i), nil)
		if resp.StatusCode == http.StatusNotFound {
			break // the stream was cut, and its session with it
		}
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("post %d: %d %s", i, resp.StatusCode, body)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(g.stderr.String(), "not reading its stream") && !strings.Contains(g.stderr.String(), "stopped reading") {
		if time.Now().After(deadline) {
			t.Fatalf("the stream that is not read was never cut:\n%.3000s", g.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ceiling(t, "gateway, an SSE client that never reads 40 answers of 9 MB", pid, base, 350*mb)
}

// TestSoakSessions: 5,000 initializes, never closed, keep 256 sessions.
func TestSoakSessions(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	s := serve(t, []string{"--backend", "native", "--vault-path", soakVault(t, 1000)})
	defer s.stop(t)
	pid := s.cmd.Process.Pid
	base := peakRSS(t, pid)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	for i := range 5000 {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("initialize %d: %d", i, resp.StatusCode)
		}
	}
	ceiling(t, "serve, 5,000 sessions opened and never closed", pid, base, 60*mb)
}

// TestSoakCommandFloodsStdout: a command namespace's server that writes
// 4 MB of junk lines before it answers initialize: the gateway answers,
// logs a bounded part of the junk, and its memory stays bounded.
func TestSoakCommandFloodsStdout(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g := gateway(t, fmt.Sprintf("namespaces:\n  flood:\n    command: %q\n    env:\n      %s: \"1\"\n", self, floodEnv))
	defer g.stop(t)
	pid := g.cmd.Process.Pid
	base := peakRSS(t, pid)
	resp, body := httpRequest(t, http.MethodPost, g.url+"/mcp/flood", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`,
		map[string]string{"Accept": "application/json, text/event-stream"})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"name":"flood"`) {
		t.Fatalf("initialize through the flood: %d %s", resp.StatusCode, body)
	}
	if n := len(g.stderr.String()); n > 1*mb {
		t.Errorf("4 MB of junk became %d bytes of log", n)
	} else {
		t.Logf("gateway, a server writing 4 MB of junk: %d KB of log", n>>10)
	}
	ceiling(t, "gateway, a command namespace writing 4 MB of junk lines", pid, base, 60*mb)
}

// TestSoakStdioHugeLine: a 300 MB line on stdin is answered with -32600
// and never held whole.
func TestSoakStdioHugeLine(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	cmd, stdin, stdout, _ := start(t, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+soakVault(t, 1000))
	pid := cmd.Process.Pid
	base := peakRSS(t, pid)
	go func() {
		_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"obsidian_create_note","arguments":{"path":"x.md","content":"`)
		chunk := strings.Repeat("x", 1<<20)
		for range 300 {
			if _, err := io.WriteString(stdin, chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(stdin, `"}}}`+"\n")
	}()
	answer := make(chan string, 1)
	go func() {
		line, _ := stdout.ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		if !strings.Contains(line, `"id":7`) || !strings.Contains(line, "-32600") || !strings.Contains(line, "over the limit") {
			t.Errorf("the answer to a 300 MB message: %.300s", line)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no answer to a 300 MB message within 60 s")
	}
	ceiling(t, "stdio, one 300 MB message", pid, base, 150*mb)
	_ = stdin.Close()
}

// floodEnv starts this test binary as a stdio server that writes 4 MB of
// junk lines before it answers initialize (runFlood).
const floodEnv = "OBSIDIAN_MCP_TEST_FLOOD"

func init() { helpers[floodEnv] = func(string) int { return runFlood() } }

// runFlood reads the gateway's initialize, writes 4 MB of junk in lines
// of 199 bytes, then the answer, and reads on until stdin closes.
func runFlood() int {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	line := strings.Repeat("j", 199) + "\n"
	for range 4000000 / 199 {
		_, _ = out.WriteString(line)
	}
	_, _ = out.WriteString(`{"jsonrpc":"2.0","id":"obsidian-mcp-gateway-initialize","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}` + "\n")
	if out.Flush() != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, in)
	return 0
}

// batchOf is a JSON-RPC batch of n tools/list requests.
func batchOf(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)
	}
	b.WriteByte(']')
	return b.String()
}

// TestSoakBatches: a batch posted without MCP-Protocol-Version (taken as
// the spec's default revision, which has batches) is bounded in messages
// (max_batch, 100) and its answers in all (max_response): one batch of
// 20,000 tools/list in 1.1 MB was answered with 519 MB and took 1–1.5 GB,
// and three at once killed a gateway. Now it is one clear error, and
// memory stays under 600 MB even where max_batch was raised to let the
// batch in.
func TestSoakBatches(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	vault := soakVault(t, 1000)
	t.Run("serve", func(t *testing.T) {
		s := serve(t, []string{"--backend", "native", "--vault-path", vault})
		defer s.stop(t)
		pid := s.cmd.Process.Pid
		base := peakRSS(t, pid)
		resp, body := httpRequest(t, http.MethodPost, s.url, batchOf(20000), map[string]string{"Accept": "application/json, text/event-stream"})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "over the limit of 100 (max_batch)") || len(body) > 4096 {
			t.Errorf("20,000 messages: %d %.300s", resp.StatusCode, body)
		}
		resp, body = httpRequest(t, http.MethodPost, s.url, batchOf(100), map[string]string{"Accept": "application/json, text/event-stream"})
		var answers []map[string]any
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &answers) != nil || len(answers) != 100 {
			t.Errorf("100 messages: %d, %d answers", resp.StatusCode, len(answers))
		}
		ceiling(t, "serve, a batch of 20,000 tools/list and one of 100", pid, base, 600*mb)
	})
	t.Run("gateway", func(t *testing.T) {
		// The batch let in (max_batch raised), its answers over
		// max_response (each tools/list is about 26 KB).
		g := gateway(t, "limits: {max_request: 2MB, max_response: 1MB, max_batch: 20000}\nnamespaces:\n  notes:\n    vault_path: "+vault+"\n")
		defer g.stop(t)
		pid := g.cmd.Process.Pid
		base := peakRSS(t, pid)
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, body := httpRequest(t, http.MethodPost, g.url+"/mcp/notes", batchOf(18000), map[string]string{"Accept": "application/json, text/event-stream"})
				if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "max_response") || len(body) > 1<<20 {
					t.Errorf("18,000 messages: %d %.300s", resp.StatusCode, body)
				}
			}()
		}
		wg.Wait()
		resp, body := httpRequest(t, http.MethodPost, g.url+"/mcp/notes", batchOf(20001), map[string]string{"Accept": "application/json, text/event-stream"})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "over the limit of 20000 (max_batch)") {
			t.Errorf("20,001 messages: %d %.300s", resp.StatusCode, body)
		}
		ceiling(t, "gateway, three batches of 18,000 tools/list at once, answers over max_response", pid, base, 600*mb)
	})
}
