package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/serve"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// TestBridgeTranscript is a bridge session as Claude Desktop sees it, in
// testdata/transcripts/bridge.txt: `-> ` lines are what the client sends,
// `<- ` every line the bridge writes (answers and notifications), and `##`
// lines act on the server behind the bridge: our own serve over the fake
// app, restarted read-only on the same port mid-session.
func TestBridgeTranscript(t *testing.T) {
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	obsidiantest.Fixture(f)
	cfg := serve.Config{Config: vaultserver.Config{Backend: backend.Auto, ObsidianBin: f.Bin, Timeout: 10 * time.Second, ToolErrors: vaultserver.ToolErrorsProtocol, LogLevel: slog.LevelDebug}}
	cfg.HTTP.Listen = "127.0.0.1:0"
	logs := &obsidiantest.Buffer{}
	logger := NewLogger(logs, slog.LevelDebug)

	// start runs serve until the returned stop is called.
	start := func(cfg serve.Config) (string, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		addr := make(chan net.Addr, 1)
		done := make(chan error, 1)
		go func() { done <- serve.Run(ctx, cfg, logger, "test", func(a net.Addr) { addr <- a }) }()
		select {
		case a := <-addr:
			return a.String(), func() { cancel(); <-done }
		case err := <-done:
			t.Fatalf("serve: %v", err)
		}
		return "", nil
	}
	addr, stop := start(cfg)
	defer func() { stop() }()

	bc, err := bridge.ParseConfig([]string{"--url", "http://" + addr + "/mcp", "--transport", "mcp"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	up, opts := bridge.Connect(bc, logger, vaultserver.Name, "test")
	opts.Poll, opts.CallTimeout = 50*time.Millisecond, time.Minute
	b := bridge.New(up, opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- b.Serve(t.Context(), inR, outW, nil); _ = outW.Close() }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the bridge stopped writing, waiting for %s\n%s", what, logs)
			}
			return l
		case <-time.After(15 * time.Second):
			t.Fatalf("nothing from the bridge, waiting for %s\n%s", what, logs)
		}
		return ""
	}

	file := filepath.Join("testdata", "transcripts", "bridge.txt")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			got = append(got, line)
			switch action := strings.TrimPrefix(line, "## "); {
			case action == "serve restarts read-only on the same port":
				stop()
				ro := cfg
				ro.ReadOnly, ro.HTTP.Listen = true, addr
				_, stop = start(ro)
			case strings.HasPrefix(action, "the bridge writes "):
				want := strings.TrimPrefix(action, "the bridge writes ")
				l := next(want)
				got = append(got, "<- "+obsidiantest.Normalise(l))
			}
		case strings.HasPrefix(line, "-> "):
			got = append(got, line)
			req := strings.TrimPrefix(line, "-> ")
			if _, err := io.WriteString(inW, req+"\n"); err != nil {
				t.Fatal(err)
			}
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal([]byte(req), &msg)
			if msg.ID == nil {
				continue
			}
			for {
				l := next("the answer to " + string(msg.ID))
				got = append(got, "<- "+obsidiantest.Normalise(l))
				var ans struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal([]byte(l), &ans) == nil && ans.Method == "" && string(ans.ID) == string(msg.ID) {
					break
				}
			}
		}
	}
	_ = inW.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	obsidiantest.CheckTranscript(t, file, string(data), got, *update, "go test ./internal/app -update")
	if t.Failed() {
		t.Logf("logs:\n%s", logs)
	}
}
