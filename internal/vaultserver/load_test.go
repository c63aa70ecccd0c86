package vaultserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestLoadThousandConcurrentCalls: 1,000 tool calls written at once over
// one connection, reads, creates and appends mixed, on the native engine.
// Every call gets exactly its own, correct answer, every write lands, and
// the heap stays bounded while they are in flight.
func TestLoadThousandConcurrentCalls(t *testing.T) {
	testenv.StressOnly(t)
	vault := t.TempDir()
	const notes = 50
	for i := range notes {
		writeFile(t, filepath.Join(vault, fmt.Sprintf("Folder %d/Note %d.md", i%5, i)), fmt.Sprintf("# Note %d\n", i))
	}
	cfg := Config{Backend: backend.Native, VaultPath: vault, Timeout: time.Minute, ToolErrors: ToolErrorsProtocol, LogLevel: slog.LevelInfo}

	const n = 1000
	var in bytes.Buffer
	want := map[string]func(response) error{}
	for i := range n {
		id := fmt.Sprint(i + 1)
		var tool string
		var args map[string]any
		switch i % 4 {
		case 0, 1: // read
			k := i % notes
			tool, args = "obsidian_read_note", map[string]any{"path": fmt.Sprintf("Folder %d/Note %d.md", k%5, k)}
			text := fmt.Sprintf("# Note %d\n", k)
			want[id] = func(r response) error {
				// Appends run alongside: the note starts with its own text.
				if r.Error != nil || !strings.HasPrefix(r.Result.Content[0].Text, text) {
					return fmt.Errorf("read of note %d", k)
				}
				return nil
			}
		case 2: // create
			tool, args = "obsidian_create_note", map[string]any{"path": fmt.Sprintf("New/Call %d.md", i), "content": "made by call " + id}
			want[id] = func(r response) error {
				if r.Error != nil || r.Result.StructuredContent["data"].(map[string]any)["path"] != fmt.Sprintf("New/Call %d.md", i) {
					return fmt.Errorf("create by call %s", id)
				}
				return nil
			}
		case 3: // append to one of ten notes, many calls each
			tool, args = "obsidian_append_to_note", map[string]any{"path": fmt.Sprintf("Folder %d/Note %d.md", i%10%5, i%10), "content": "line from call " + id}
			want[id] = func(r response) error {
				if r.Error != nil {
					return fmt.Errorf("append by call %s", id)
				}
				return nil
			}
		}
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		in.Write(append(req, '\n'))
	}

	// Heap growth is measured from the live heap of earlier tests.
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	lines := serveAll(t, cfg, in.String())
	close(stop)
	<-sampled

	if len(lines) != n {
		t.Fatalf("%d answers to %d calls", len(lines), n)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		r := decode(t, l)
		id := string(r.ID)
		check, ok := want[id]
		switch {
		case !ok || seen[id]:
			t.Fatalf("unexpected or repeated answer %s", trunc(l))
		case check(r) != nil:
			t.Errorf("%v: %s", check(r), trunc(l))
		}
		seen[id] = true
	}
	// Every append landed, in some order, exactly once.
	for k := range 10 {
		data, err := os.ReadFile(filepath.Join(vault, fmt.Sprintf("Folder %d/Note %d.md", k%5, k)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i := 3; i < n; i += 4 {
			if i%10 == k && count(lines, fmt.Sprintf("line from call %d", i+1)) != 1 {
				t.Errorf("note %d: the append of call %d is missing or doubled", k, i+1)
			}
		}
	}
	// 1,000 requests of under 200 bytes each: a heap beyond 64 MiB would
	// mean something is held per request (or grows with the backlog).
	growth := peak.Load() - min(peak.Load(), base.HeapInuse)
	t.Logf("heap in use: %.1f MiB before, peak %.1f MiB during the calls", float64(base.HeapInuse)/(1<<20), float64(peak.Load())/(1<<20))
	if growth > 64<<20 {
		t.Errorf("the heap grew by %d MiB for 1,000 small calls", growth>>20)
	}
}

// TestTenMegabyteNote: a 10 MB note (2 MB under the race detector), with
// every byte class the escaping rules care about, is created, read back and
// appended to intact through both backends.
func TestTenMegabyteNote(t *testing.T) {
	testenv.StressOnly(t)
	size := 10 << 20
	if raceEnabled {
		size = 2 << 20
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "line %d: tab\there, CRLF\r\n, backslash \\n \\t \\\\ , LaTeX $\\frac{a}{b}$, unicode é 漢字 🙂, quote \" [[Link %d]]\n", i, i%100)
	}
	content := b.String()
	sum := sha256.Sum256([]byte(content))
	for _, mode := range []backend.Mode{backend.Native, backend.CLI} {
		t.Run(string(mode), func(t *testing.T) {
			f := obsidiantest.Install(t, obsidiantest.Scenario{})
			cfg := testConfig(f)
			cfg.Backend = mode
			if mode == backend.Native {
				cfg.VaultPath = f.Vault
			}
			s := startServer(t, cfg)
			s.initialize()
			if r := decode(t, s.call("obsidian_create_note", map[string]any{"path": "Big.md", "content": content})); r.Error != nil {
				t.Fatalf("create: %+v", r.Error)
			}
			onDisk, _ := f.Note("Big.md")
			if sha256.Sum256([]byte(onDisk)) != sum {
				t.Fatalf("the file on disk differs from what was sent (%d bytes, want %d)", len(onDisk), len(content))
			}
			// Every answer stays under about 100 KB, so the note comes back
			// in parts cut at line ends; put together, they are the note.
			var got strings.Builder
			from, parts := 1, 0
			for {
				r := decode(t, s.call("obsidian_read_note", map[string]any{"path": "Big.md", "lines": fmt.Sprintf("%d-", from)}))
				if r.Error != nil {
					t.Fatalf("read from line %d: %+v", from, r.Error)
				}
				part := r.Result.Content[0].Text
				if len(part) > 100_000 {
					t.Fatalf("a part of %d bytes", len(part))
				}
				got.WriteString(part)
				parts++
				sc := r.Result.StructuredContent
				if sc["etag"] != note.ETag([]byte(content)) {
					t.Fatalf("etag %v is not the whole note's", sc["etag"])
				}
				if sc["truncated"] != true {
					break
				}
				from = int(sc["lines"].(map[string]any)["end"].(float64)) + 1
			}
			if sha256.Sum256([]byte(got.String())) != sum {
				t.Fatalf("read back %d bytes in %d parts that differ from the %d written", got.Len(), parts, len(content))
			}
			if r := decode(t, s.call("obsidian_append_to_note", map[string]any{"path": "Big.md", "content": content})); r.Error != nil {
				t.Fatalf("append: %+v", r.Error)
			}
			// Twice the content, the second a block of its own.
			if onDisk, _ := f.Note("Big.md"); onDisk != string(note.Append([]byte(content), []byte(content), false)) {
				t.Fatalf("after appending it again the note has %d bytes, want %d, twice the content and a blank line", len(onDisk), 2*len(content)+2)
			}
		})
	}
}

func count(lines []string, line string) int {
	n := 0
	for _, l := range lines {
		if l == line {
			n++
		}
	}
	return n
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
