package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// Executable is the program a command namespace runs, found as the
// gateway starts it: a bare name on PATH, a relative path from cwd, with
// ~/ expanded in both command and cwd.
func (n Namespace) Executable() (string, error) {
	name := expandHome(n.Command)
	if filepath.Base(name) == name {
		return exec.LookPath(name)
	}
	if !filepath.IsAbs(name) && n.Cwd != "" {
		// exec runs a relative path from the process's directory.
		name = filepath.Join(expandHome(n.Cwd), name)
	}
	st, err := os.Stat(name)
	switch {
	case err != nil:
		return "", err
	case st.IsDir():
		return "", fmt.Errorf("%s is a folder", name)
	case st.Mode()&0o111 == 0 && filepath.Ext(name) == "":
		return "", fmt.Errorf("%s is not executable", name)
	}
	return name, nil
}

// Dir is the folder a command namespace's process starts in ("" for the
// gateway's own).
func (n Namespace) Dir() string { return expandHome(n.Cwd) }

// Probed is what a command namespace's server said when probed.
type Probed struct {
	Server, Version, Protocol string
	Tools                     int
	PID                       int
	Took                      time.Duration // from start to the tools/list answer
}

// Probe starts a command namespace's server exactly as the gateway does,
// does the handshake, lists its tools and stops it: what `obsidian-mcp
// doctor --gateway` reports. It does not retry: a failure is returned at
// once, with what the process said last.
func Probe(ctx context.Context, n Namespace, version string, logger *slog.Logger) (Probed, error) {
	start := time.Now()
	p := newCommandPeer(auth.Guard{Writes: auth.Writing}, n, version, Backoff{Initial: time.Hour, Max: time.Hour}, DefaultMaxResponse, 0, logger)
	defer p.close()
	pr, err := p.sup.ensure(ctx)
	if err != nil {
		return Probed{}, err
	}
	var init struct {
		Protocol   string `json:"protocolVersion"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	_ = json.Unmarshal(pr.initResult, &init)
	got := Probed{Server: init.ServerInfo.Name, Version: init.ServerInfo.Version, Protocol: init.Protocol, PID: pr.pid}
	// A session of its own, attached to nothing: nothing but the answer
	// reaches it.
	s := mcphttp.Detached("doctor")
	answer := make(chan []byte, 1)
	p.Send(ctx, s, &mcphttp.Message{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), ID: json.RawMessage("1"), Method: "tools/list"},
		func(b []byte) { answer <- b })
	var b []byte
	select {
	case b = <-answer:
	case <-ctx.Done():
		return got, fmt.Errorf("no answer to tools/list: %w", context.Cause(ctx))
	}
	var list struct {
		Result *struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	switch {
	case b == nil:
		return got, errors.New("tools/list was not answered")
	case json.Unmarshal(b, &list) != nil:
		return got, fmt.Errorf("tools/list: the answer is not JSON-RPC: %s", truncate(string(b), 200))
	case list.Error != nil && list.Error.Code == -32601:
		// A server of prompts or resources only: it serves no tools.
	case list.Error != nil:
		return got, fmt.Errorf("tools/list failed: %s (%d)", list.Error.Message, list.Error.Code)
	case list.Result == nil && list.Error == nil:
		return got, fmt.Errorf("tools/list: the answer has no result: %s", truncate(string(b), 200))
	}
	if list.Result != nil {
		got.Tools = len(list.Result.Tools)
	}
	got.Took = time.Since(start)
	return got, nil
}
