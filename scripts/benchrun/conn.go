package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// failed reports a JSON-RPC error or an isError result.
func failed(resp []byte) error {
	var m struct {
		Error  *json.RawMessage `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &m); err != nil {
		return err
	}
	if m.Error != nil {
		return fmt.Errorf("error %s", *m.Error)
	}
	if m.Result.IsError {
		text := ""
		if len(m.Result.Content) > 0 {
			text = m.Result.Content[0].Text
		}
		return fmt.Errorf("tool error: %s", text)
	}
	return nil
}

// procStatus reads a kB field of /proc/<pid>/status.
func procStatus(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// procCPU is the CPU time process pid has used so far, user and system, in
// seconds (/proc/pid/stat counts clock ticks, 100 a second on Linux).
func procCPU(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields after it.
	_, rest, ok := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, data)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, data)
	}
	return float64(utime+stime) / 100, nil
}

// conn is a stdio JSON-RPC connection to one server process.
type conn struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  *tail
	started time.Time
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

func dial(s server) (*conn, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	c := &conn{cmd: cmd, stderr: &tail{max: 2000}}
	// Kept, not shown: a server that dies before answering says why here.
	cmd.Stderr = c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.in, c.out = in, bufio.NewReaderSize(out, 1<<20)
	c.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *conn) send(line string) error {
	_, err := io.WriteString(c.in, line+"\n")
	return err
}

// call sends a request and returns the response with its id, skipping
// anything else the server writes (notifications, its own requests).
func (c *conn) call(id int, line string) ([]byte, error) {
	if err := c.send(line); err != nil {
		return nil, err
	}
	want := strconv.Itoa(id)
	for {
		resp, err := c.out.ReadBytes('\n')
		if err != nil {
			// Give the process a moment to finish writing why it stopped.
			time.Sleep(100 * time.Millisecond)
			return nil, fmt.Errorf("reading the answer to id %d: %w; its stderr: %q", id, err, c.stderr.String())
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(resp, &m) == nil && m.Method == "" && string(m.ID) == want {
			return resp, nil
		}
	}
}

func (c *conn) close() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// started starts argv's server and initializes it.
func started(name string, argv []string) (*conn, error) {
	c, err := dial(server{argv: argv})
	if err != nil {
		return nil, err
	}
	if _, err := c.call(1, initialize); err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	_ = c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c, nil
}
