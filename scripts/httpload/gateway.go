package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// gatewayRun is one obsidian-mcp gateway with two namespaces on the same
// vault: "vault", served in its process, and "command", this program over
// stdio as its managed subprocess.
type gatewayRun struct {
	cmd    *exec.Cmd
	base   string // http://host:port
	client *http.Client
}

var gatewayServing = regexp.MustCompile(`api=(http://\S+)/mcp/\{namespace\}`)

func startGateway(bin, vault, tmp string, clients int) (*gatewayRun, error) {
	// Enough streams for one SSE session per client, and answers of any note.
	config := fmt.Sprintf(`listen: 127.0.0.1:0
debug_listen: 127.0.0.1:0
limits: {max_connections: %d}
namespaces:
  vault:
    vault_path: %q
  command:
    command: %q
    args: [--backend, native, --vault-path, %q]
`, clients+1, vault, bin, vault)
	file := filepath.Join(tmp, "gateway.yaml")
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		return nil, err
	}
	// Logs as shipped (info: starts, stops and refusals; no line per call), drained.
	cmd := exec.Command(bin, "gateway", "--config", file)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &gatewayRun{cmd: cmd, client: &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 2 * clients},
	}}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := gatewayServing.FindStringSubmatch(sc.Text()); m != nil {
			g.base = m[1]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	if g.base == "" {
		g.stop()
		return nil, errors.New("the gateway did not start")
	}
	return g, nil
}

func (g *gatewayRun) stop() {
	_ = g.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = g.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = g.cmd.Process.Kill()
		<-done
	}
}

// post sends one JSON-RPC body and returns the answer's status, session
// header and body.
func (g *gatewayRun) post(url, session string, body []byte) (int, string, []byte, error) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), data, err
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"httpload","version":"1"}}}`
const initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// overStreamable has each client open its own session with initialize,
// then make its reads as POSTs answered in JSON.
func (g *gatewayRun) overStreamable(ns string, paths []string, clients, reads int) (result, error) {
	url := g.base + "/mcp/" + ns
	sessions := make([]string, clients)
	for c := range sessions {
		status, id, body, err := g.post(url, "", []byte(initBody))
		if err != nil || status != http.StatusOK || id == "" {
			return result{}, fmt.Errorf("initialize: status %d, session %q, %v: %.200s", status, id, err, body)
		}
		if status, _, body, err := g.post(url, id, []byte(initializedBody)); err != nil || status != http.StatusAccepted {
			return result{}, fmt.Errorf("initialized: status %d, %v: %.200s", status, err, body)
		}
		sessions[c] = id
	}
	call := func(c, id int, path string) error {
		status, _, body, err := g.post(url, sessions[c], readCall(id, path))
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("status %d: %.200s", status, body)
		}
		return checkRead(body)
	}
	// The first call warms the namespace (and starts the subprocess).
	if err := call(0, 0, paths[0]); err != nil {
		return result{}, err
	}
	res := measure(clients, reads, paths, "gateway-"+ns, call)
	for _, id := range sessions {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		req.Header.Set("Mcp-Session-Id", id)
		if resp, err := g.client.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	return res, nil
}

// sseSession is one HTTP+SSE client: its stream, and the message URL its
// endpoint event gave.
type sseSession struct {
	post    string
	answers chan []byte
}

// overSSE has each client open its own stream (GET /mcp/{ns}), take the
// message URL from the endpoint event, initialize, and make its reads as
// POSTs answered 202, each answer awaited on the stream.
func (g *gatewayRun) overSSE(ns string, paths []string, clients, reads int) (result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sessions := make([]*sseSession, clients)
	for c := range sessions {
		s, err := g.openSSE(ctx, ns)
		if err != nil {
			return result{}, fmt.Errorf("client %d: %w", c, err)
		}
		if _, err := s.call(g, []byte(initBody)); err != nil {
			return result{}, fmt.Errorf("initialize: %w", err)
		}
		if status, _, body, err := g.post(s.post, "", []byte(initializedBody)); err != nil || status != http.StatusAccepted {
			return result{}, fmt.Errorf("initialized: status %d, %v: %.200s", status, err, body)
		}
		sessions[c] = s
	}
	call := func(c, id int, path string) error {
		answer, err := sessions[c].call(g, readCall(id, path))
		if err != nil {
			return err
		}
		return checkRead(answer)
	}
	if err := call(0, 0, paths[0]); err != nil {
		return result{}, err
	}
	return measure(clients, reads, paths, "gateway-"+ns+"-sse", call), nil
}

func (g *gatewayRun) openSSE(ctx context.Context, ns string) (*sseSession, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, g.base+"/mcp/"+ns, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("stream: status %d: %.200s", resp.StatusCode, data)
	}
	s := &sseSession{answers: make(chan []byte, 16)}
	endpoint := make(chan string, 1)
	go func() {
		defer resp.Body.Close()
		r := bufio.NewReaderSize(resp.Body, 1<<20)
		var name string
		var data []byte
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(s.answers)
				return
			}
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0: // the event is complete
				switch name {
				case "endpoint":
					endpoint <- string(data)
				case "message":
					// Only answers: one call is in flight per client.
					if bytes.Contains(data, []byte(`"id"`)) && !bytes.Contains(data, []byte(`"method"`)) {
						s.answers <- data
					}
				}
				name, data = "", nil
			case bytes.HasPrefix(line, []byte("event:")):
				name = strings.TrimSpace(string(line[len("event:"):]))
			case bytes.HasPrefix(line, []byte("data:")):
				data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
			}
		}
	}()
	select {
	case e := <-endpoint:
		s.post = g.base + e
		return s, nil
	case <-time.After(10 * time.Second):
		return nil, errors.New("no endpoint event within 10 s")
	}
}

// call posts one request and waits for its answer on the stream.
func (s *sseSession) call(g *gatewayRun, body []byte) ([]byte, error) {
	status, _, data, err := g.post(s.post, "", body)
	if err != nil {
		return nil, err
	}
	if status != http.StatusAccepted {
		return nil, fmt.Errorf("status %d: %.200s", status, data)
	}
	var want struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &want)
	select {
	case answer, ok := <-s.answers:
		if !ok {
			return nil, errors.New("the stream ended")
		}
		var got struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(answer, &got) != nil || string(got.ID) != string(want.ID) {
			return nil, fmt.Errorf("answer for id %s, wanted %s", got.ID, want.ID)
		}
		return answer, nil
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("no answer to %s within a minute", want.ID)
	}
}
