package wire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// BenchmarkOutput: the cost the wire layer adds to every answer the server
// writes, for a 2 KB read result and for a failed call whose error it
// rewrites to carry our code and data.
func BenchmarkOutput(b *testing.B) {
	result := []byte(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"` + strings.Repeat("note text ", 200) + `"}]}}` + "\n")
	failure := []byte(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"note not found: A.md"}}` + "\n")
	for _, bc := range []struct {
		name string
		line []byte
		err  *errors.Error
	}{
		{"result_2KB", result, nil},
		{"error_rewritten", failure, errors.E(errors.FileNotFound, "note not found: A.md").WithHint("Check the path.").With("path", "A.md")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := New(discard(), time.Second)
			out := s.Output(io.Discard)
			i := 0
			for b.Loop() {
				i++
				key := fmt.Sprintf("n:%d", i)
				s.begin(key)
				if bc.err != nil {
					s.mu.Lock()
					s.errs[key] = bc.err
					s.mu.Unlock()
				}
				if _, err := fmt.Fprintf(out, string(bc.line), i); err != nil {
					b.Fatal(err)
				}
			}
			if s.Pending() != 0 {
				b.Fatal("answers not matched to their requests")
			}
		})
	}
}

// BenchmarkInput: the cost the wire layer adds to every request read.
func BenchmarkInput(b *testing.B) {
	var stream bytes.Buffer
	const n = 1000
	for i := range n {
		fmt.Fprintf(&stream, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Folder 01/Note %05d.md"}}}`+"\n", i, i)
	}
	data := stream.Bytes()
	b.SetBytes(int64(len(data)))
	buf := make([]byte, 64<<10)
	for b.Loop() {
		s := New(discard(), time.Millisecond)
		s.drainTimeout = 0
		in := s.Input(context.Background(), bytes.NewReader(data))
		for {
			if _, err := in.Read(buf); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/request")
}
