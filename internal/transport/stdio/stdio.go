// Package stdio serves MCP over a process's standard streams: one JSON-RPC
// message per line, as MCP's stdio transport says, through the protocol
// core. It owns what only a stream has:
//
//   - framing: a last line without its '\n' still counts, blank lines are
//     skipped (mcp-go answered them with id-less parse errors), and the
//     `exit` notification ends input as end of file does;
//   - end of input: every request already read is answered before Serve
//     returns (mcp-go dropped queued calls at EOF), within DrainTimeout;
//   - a client that goes away (a failed write, or its output found closed
//     while answers are pending, looked at every goneCheck) stops every
//     call at once.
//
// Nothing here knows about tools or Obsidian.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// Options configure Serve.
type Options struct {
	Logger *slog.Logger
	// DrainTimeout bounds the wait for answers at end of input, so that a
	// request that never completes cannot keep the process alive.
	DrainTimeout time.Duration
	// Gone reports whether nobody reads the output any more (nil: never
	// asked). It is asked every goneCheck while answers are pending, and
	// when input ends with answers pending.
	Gone func() bool
	// MaxLine bounds one message (default DefaultMaxLine): a longer line is
	// skipped, never held whole, and answered with an error that says so.
	MaxLine int
}

// DefaultMaxLine bounds a message on stdin: three times the largest note
// a client may send in one call (10 MB, escaped as JSON), with room to
// spare.
const DefaultMaxLine = 32 << 20

// headKept is how much of a line over MaxLine is kept, to find its id.
const headKept = 64 << 10

// goneCheck is how often Options.Gone is asked while answers are pending.
const goneCheck = 200 * time.Millisecond

// Serve answers MCP read from in on out through core until in ends or the
// client sends exit (the requests read are answered first), the client
// goes away, or ctx ends; the last two are clean stops (nil).
func Serve(ctx context.Context, core *protocol.Core, in io.Reader, out io.Writer, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	// A client that goes away mid-call must not leave its calls (and the
	// CLI processes they started) running until they time out.
	parent := ctx
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	t := &transport{opts: opts, out: out, stop: stop}
	sess, err := core.Open("stdio", t.write, protocol.SessionOptions{
		Asks: true,
		Lost: func(err error) { t.lose("writing to the client failed: " + err.Error()) },
	})
	if err != nil {
		return err
	}
	t.sess = sess
	reply := func(answer []byte) {
		if answer == nil || t.lost.Load() {
			return // nobody reads any more
		}
		if err := t.write(answer); err != nil {
			t.lose("writing an answer failed: " + err.Error())
		}
	}
	lines := readLines(in, ctx.Done(), opts.MaxLine, opts.Logger)
	// A client may close its end of our output and keep its input open.
	// Nothing tells us until we write, and a call that hangs writes
	// nothing; nor is one failed write proof enough: a process the client
	// forked and that has not yet run its program holds a copy of that end
	// a moment longer, and an answer written then is taken without an
	// error, the last we would write. So while answers are pending the
	// output is looked at every goneCheck (never while idle).
	var check <-chan time.Time
	arm := func() {
		if opts.Gone != nil && check == nil {
			check = time.After(goneCheck)
		}
	}
	stopped := false
read:
	for {
		select {
		case <-ctx.Done():
			stopped = true
			break read
		case <-check:
			check = nil
			if sess.Pending() == 0 {
				continue
			}
			if opts.Gone() {
				t.lose("the output closed while answers were pending")
				continue
			}
			arm()
		case line, ok := <-lines:
			if !ok {
				break read
			}
			if line.size > 0 {
				opts.Logger.Warn("a message over the size limit; skipped", "bytes", line.size, "max", opts.MaxLine)
				reply(tooLong(line.data, line.size, opts.MaxLine))
				continue
			}
			if isExit(line.data) {
				break read // graceful shutdown, as at end of input
			}
			sess.Receive(ctx, line.data, reply)
			arm()
		}
	}
	if !stopped {
		t.drain(ctx)
	}
	sess.Close()
	// Cancelled calls answer quickly; wait for them, so that nothing is
	// written to out after Serve returns.
	settle, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case <-sess.Idle():
	case <-settle.Done():
		opts.Logger.Warn("calls still running after their session ended", "pending", sess.Pending())
	}
	switch {
	case t.lost.Load():
		opts.Logger.Info("client disconnected; exiting")
	case parent.Err() != nil:
		opts.Logger.Info("stopped by signal")
	default:
		opts.Logger.Info("input closed; exiting")
	}
	return nil
}

type transport struct {
	opts Options
	sess *protocol.Session
	stop context.CancelFunc
	lost atomic.Bool

	mu  sync.Mutex
	out io.Writer
	buf []byte
}

// write writes one message and its line end with a single Write, so that
// messages never interleave.
func (t *transport) write(msg []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(append(t.buf[:0], msg...), '\n')
	_, err := t.out.Write(t.buf)
	if cap(t.buf) > 1<<20 {
		t.buf = nil // one large note need not be held for the session
	}
	return err
}

func (t *transport) lose(why string) {
	if t.lost.Swap(true) {
		return
	}
	t.opts.Logger.Warn("client disconnected; cancelling its requests", "why", why, "pending", t.sess.Pending())
	t.stop()
}

// drain waits until nothing is pending, ctx ends, DrainTimeout passes, or
// the client is found gone.
func (t *transport) drain(ctx context.Context) {
	t.sess.EndListens()
	n := t.sess.Pending()
	if n == 0 {
		return
	}
	if t.opts.Gone != nil && t.opts.Gone() {
		t.lose("input ended and the output is closed")
		return
	}
	t.opts.Logger.Debug("input closed; answering pending requests before exiting", "pending", n)
	timer := time.NewTimer(t.opts.DrainTimeout)
	defer timer.Stop()
	// A client may close its input a moment before its output, so the
	// check above can come too early: keep checking while waiting, or a
	// client that is gone would keep a call running until it times out.
	var check <-chan time.Time
	if t.opts.Gone != nil {
		tick := time.NewTicker(goneCheck)
		defer tick.Stop()
		check = tick.C
	}
	idle := t.sess.Idle()
	for {
		select {
		case <-idle:
			return
		case <-ctx.Done():
			return
		case <-timer.C:
			t.opts.Logger.Warn("input closed; gave up waiting for pending requests", "pending", t.sess.Pending(), "waited", t.opts.DrainTimeout)
			return
		case <-check:
			if t.opts.Gone() {
				t.lose("the output closed while pending requests were answered after input ended")
				return
			}
		}
	}
}

// line is one line of input: whole, or, when size is set (a line over the
// limit, of size bytes), its first headKept bytes.
type line struct {
	data []byte
	size int
}

// readLines reads in line by line in the background (a read cannot be
// interrupted, but Serve need not wait for it), skipping blank lines. A
// line over limit is read to its end but not kept, but for its head.
func readLines(in io.Reader, done <-chan struct{}, limit int, logger *slog.Logger) <-chan line {
	lines := make(chan line)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			data, size, err := ReadLine(br, limit, headKept)
			l := line{data: data}
			if size > limit {
				l.size = size
			}
			if len(bytes.TrimSpace(l.data)) > 0 {
				select {
				case lines <- l:
				case <-done:
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					logger.Warn("reading input", "err", err)
				}
				return
			}
		}
	}()
	return lines
}

// ReadLine reads one line of br, to its line end ("\n", "\r\n") or the
// end of input, and returns it without the line end, and its length. A
// line longer than limit bytes is read to its end but not kept whole: line
// holds its first head bytes only, and a reader is never made to hold a
// line of any length (a server's stdout, a client's stdin). The process's
// standard streams carry MCP this way on both sides of a gateway.
func ReadLine(br *bufio.Reader, limit, head int) (line []byte, size int, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		end := !errors.Is(err, bufio.ErrBufferFull)
		if end {
			// The line end is no part of the line.
			chunk = bytes.TrimRight(chunk, "\r\n")
		}
		size += len(chunk)
		switch {
		case size <= limit:
			line = append(line, chunk...)
		case len(line) > head:
			// Past the limit: what was read so far is let go, but its head.
			line = bytes.Clone(line[:head])
		default:
			line = append(line, chunk[:min(len(chunk), head-len(line))]...)
		}
		if end {
			return line, size, err
		}
	}
}

// tooLong is the answer to a message over the limit: -32600, with the
// request's id when its head holds it.
func tooLong(head []byte, size, limit int) []byte {
	var id json.RawMessage
	if got := gjson.GetBytes(head, "id"); got.Exists() && (got.Type == gjson.Number || got.Type == gjson.String) {
		id = json.RawMessage(got.Raw)
	}
	return protocol.ErrorAnswer(id, -32600, fmt.Sprintf("Invalid Request: the message is %d bytes, over the limit of %d for one message; it was not read. Send less at once: a long note can be created, then appended to in parts", size, limit))
}

// isExit reports whether line is the `exit` notification (LSP's, which
// some clients send before closing).
func isExit(line []byte) bool {
	if !bytes.Contains(line, []byte(`"exit"`)) {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method == "exit" && (m.ID == nil || string(m.ID) == "null")
}
