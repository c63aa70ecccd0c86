package wire

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealClientTranscripts plays what real clients wrote, byte for byte,
// through a session: testdata/clients holds one recording per client and
// version (the official Go and TypeScript SDKs, the MCP Inspector), taken
// with tee between the client and the server while cmd/obsidian-mcp's
// client tests' scenarios ran. Each client orders members its own way (the
// TypeScript SDK and the Inspector put the id last), and every promise the
// session makes must hold for each: each request is counted as pending
// until its answer is written, the deferred tool registration has run
// before a request that needs it is passed on, a cancellation marks its
// request and the cancelled answer is dropped, and nothing is left
// pending at the end.
func TestRealClientTranscripts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "clients", "*.jsonl"))
	if len(files) < 4 {
		t.Fatalf("want the recordings of the three clients, found %v", files)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			stream, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s := New(discard(), time.Millisecond)
			prepared := false
			s.Defer(func() { prepared = true })
			in := bufio.NewReader(s.Input(context.Background(), bytes.NewReader(stream)))
			var requests, cancels []facts
			calls := 0
			for _, want := range strings.SplitAfter(strings.TrimSuffix(string(stream), "\n"), "\n") {
				got, err := in.ReadString('\n')
				if err != nil || strings.TrimSuffix(got, "\n") != strings.TrimSuffix(want, "\n") {
					t.Fatalf("passed on %q, %v; want the line as written: %q", got, err, want)
				}
				f, isObject := decodeFacts([]byte(want))
				switch {
				case !isObject:
					t.Fatalf("not a JSON object: %q", want)
				case f.isRequest():
					requests = append(requests, f)
					if f.method != "initialize" && f.method != "ping" && !prepared {
						t.Errorf("%s was passed on before the deferred work ran", f.method)
					}
					calls += strings.Count(f.method, "tools/call")
				case f.cancelled != "":
					cancels = append(cancels, f)
				}
				if n := s.Pending(); n != len(requests) {
					t.Fatalf("after %q: %d pending, want %d", want, n, len(requests))
				}
			}
			if calls == 0 {
				t.Fatal("the recording has no tools/call")
			}
			for _, c := range cancels {
				if !s.cancelled[c.cancelled] {
					t.Errorf("the cancellation of %s was not matched to its request", c.cancelled)
				}
			}
			// Answer every request as mcp-go would (its id first); only the
			// uncancelled answers reach the client.
			var out bytes.Buffer
			w := s.Output(&out)
			for _, r := range requests {
				if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(r.rawID) + `,"result":{}}` + "\n")); err != nil {
					t.Fatal(err)
				}
			}
			if n := s.Pending(); n != 0 {
				t.Errorf("%d requests still pending after their answers", n)
			}
			if got, want := strings.Count(out.String(), "\n"), len(requests)-len(cancels); got != want {
				t.Errorf("%d answers written, want %d (the cancelled one dropped):\n%s", got, want, out.String())
			}
		})
	}
}
