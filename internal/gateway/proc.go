package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
)

// proc is one run of the server.
type proc struct {
	cmd     *exec.Cmd
	pid     int
	started time.Time
	stdin   io.WriteCloser
	wmu     sync.Mutex
	// initAnswer receives the server's answer to initialize; init is
	// closed once the handshake is done (result) or failed (err).
	initAnswer chan initAnswer
	init       chan struct{}
	initOnce   sync.Once
	initResult json.RawMessage
	initErr    error
	exited     chan struct{}
	lastStderr atomic.Value // string
	// outDone and errDone are closed when stdout and stderr end.
	outDone, errDone chan struct{}
}

type initAnswer struct {
	result json.RawMessage
	err    error
}

func (pr *proc) initDone(result json.RawMessage, err error) {
	pr.initOnce.Do(func() {
		pr.initResult, pr.initErr = result, err
		close(pr.init)
	})
}

func (pr *proc) write(msg []byte) error {
	pr.wmu.Lock()
	defer pr.wmu.Unlock()
	_, err := pr.stdin.Write(append(bytes.TrimSpace(msg), '\n'))
	return err
}

// exitWords says how the process ended, with its last line on stderr.
func (pr *proc) exitWords() string {
	words := "still running"
	if ps := pr.cmd.ProcessState; ps != nil {
		words = ps.String()
	}
	if last, _ := pr.lastStderr.Load().(string); last != "" {
		words += ": " + last
	}
	return words
}

// initAnswered hands the answer to the gateway's initialize to the
// handshake, and reports whether line was it. The id is the gateway's own
// string, which no request routed to the process has (theirs are numbers).
func initAnswered(pr *proc, line []byte) bool {
	if !bytes.Contains(line, []byte(initID)) || !gjson.ValidBytes(line) {
		return false
	}
	got := gjson.GetManyBytes(line, "id", "method", "result", "error")
	if got[0].Raw != initID || got[1].Exists() {
		return false
	}
	a := initAnswer{result: json.RawMessage(got[2].Raw)}
	if got[3].Exists() {
		a.err = fmt.Errorf("initialize failed: %s", got[3].Raw)
	}
	select {
	case pr.initAnswer <- a:
	default: // a second answer; the first counts
	}
	return true
}
