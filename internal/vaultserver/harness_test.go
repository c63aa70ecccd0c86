package vaultserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
)

// mcp-go keeps one stdio session per process (a package global), so the
// tests in this package that run a server do not run in parallel.

func TestMain(m *testing.M) { obsidiantest.Main(testenv.Isolated{M: m}) }

// serve serves cfg over stdio as `obsidian-mcp` does (internal/app's
// Serve, which adds the program's collector policy), for the tests of
// this server through its stdio face.
func serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer, logger *slog.Logger, version string) error {
	st, err := Open(cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	core := st.Core(version, CoreOptions{DeferTools: true})
	return stdio.Serve(ctx, core, in, out, stdio.Options{Logger: logger, DrainTimeout: st.CallBound, Gone: func() bool { return stdio.OutputClosed(out) }})
}

// testLogger logs at level to w, as text.
func testLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

func testConfig(f *obsidiantest.Fake) Config {
	return Config{Backend: backend.Auto, ObsidianBin: f.Bin, Timeout: 10 * time.Second, ToolErrors: ToolErrorsProtocol, LogLevel: slog.LevelDebug}
}

// testServer is one in-process server on pipes.
type testServer struct {
	t      testing.TB
	in     *io.PipeWriter
	out    *bufio.Reader
	logs   *obsidiantest.Buffer
	done   chan error
	nextID int
}

func startServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	logs := &obsidiantest.Buffer{}
	s := &testServer{t: t, in: inW, out: bufio.NewReader(outR), logs: logs, done: make(chan error, 1)}
	go func() {
		err := serve(t.Context(), cfg, inR, outW, testLogger(logs, cfg.LogLevel), "test")
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // let a late writer finish
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("server did not stop after stdin closed")
		}
	})
	return s
}

func (s *testServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// read returns the next line the server writes.
func (s *testServer) read() string {
	s.t.Helper()
	line, err := s.out.ReadString('\n')
	if err != nil {
		s.t.Fatalf("reading server output: %v (logs:\n%s)", err, s.logs.String())
	}
	return strings.TrimSuffix(line, "\n")
}

// roundTrip sends one request and returns its response, skipping any
// notifications written before it.
func (s *testServer) roundTrip(line string) string {
	s.t.Helper()
	if strings.HasPrefix(line, "[") {
		// A batch gets one answer, unless it holds only notifications.
		var items []struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(line), &items)
		answered := len(items) == 0
		for _, it := range items {
			answered = answered || it.ID != nil
		}
		s.send(line)
		if !answered {
			return ""
		}
		return s.read()
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(line), &req); err != nil {
		s.t.Fatalf("bad request %s: %v", line, err)
	}
	s.send(line)
	if req.ID == nil {
		return ""
	}
	for {
		got := s.read()
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(got), &resp); err != nil {
			s.t.Fatalf("server wrote a non-JSON line: %q", got)
		}
		if resp.Method == "" && string(resp.ID) == string(req.ID) {
			return got
		}
	}
}

// call runs a tool and returns the raw response line.
func (s *testServer) call(tool string, args any) string {
	s.t.Helper()
	s.nextID++
	a, _ := json.Marshal(args)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1000 + s.nextID, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": json.RawMessage(a)}})
	return s.roundTrip(string(req))
}

func (s *testServer) initialize() {
	s.t.Helper()
	s.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// response is a decoded JSON-RPC response.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func decode(t testing.TB, line string) response {
	t.Helper()
	var r response
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("bad response %q: %v", line, err)
	}
	return r
}

// serveAll runs a server on the given input, which ends (EOF) after the
// last line, and returns every line written to stdout.
func serveAll(t *testing.T, cfg Config, input string) []string {
	t.Helper()
	var out obsidiantest.Buffer
	logs := &obsidiantest.Buffer{}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if err := serve(ctx, cfg, strings.NewReader(input), &out, testLogger(logs, slog.LevelDebug), "test"); err != nil {
		t.Fatalf("Serve: %v\n%s", err, logs.String())
	}
	text := strings.TrimSuffix(out.String(), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// trunc shortens what a failure prints.
func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
