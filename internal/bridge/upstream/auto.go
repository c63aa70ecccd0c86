package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
)

// Auto is the contract's auto mode: MCP first; health and listing fall
// back to v1 on any error; a call falls back only when MCP's answer proves
// it did not run (JSON-RPC -32601, HTTP 404, 405 or 501), so that no call
// runs twice. Once it has fallen back, v1 serves the rest of the process.
type Auto struct {
	MCP    *MCP
	V1     *V1
	Logger *slog.Logger
	onV1   atomic.Bool
}

// Name implements Transport: the transport in use.
func (a *Auto) Name() string {
	if a.onV1.Load() {
		return a.V1.Name()
	}
	return a.MCP.Name()
}

func (a *Auto) fallBack(why error) {
	if !a.onV1.Swap(true) && a.Logger != nil {
		a.Logger.Info("MCP over HTTP did not answer; using the Bridge Protocol v1 from now on", "reason", why)
	}
}

// Health implements Transport.
func (a *Auto) Health(ctx context.Context) error {
	if a.onV1.Load() {
		return a.V1.Health(ctx)
	}
	err := a.MCP.Health(ctx)
	if err == nil {
		return nil
	}
	if v1err := a.V1.Health(ctx); v1err != nil {
		return err
	}
	a.fallBack(err)
	return nil
}

// Tools implements Transport.
func (a *Auto) Tools(ctx context.Context) ([]Tool, string, error) {
	if a.onV1.Load() {
		return a.V1.Tools(ctx)
	}
	tools, hash, err := a.MCP.Tools(ctx)
	if err == nil {
		return tools, hash, nil
	}
	tools, hash, v1err := a.V1.Tools(ctx)
	if v1err != nil {
		return nil, "", err
	}
	a.fallBack(err)
	return tools, hash, nil
}

// Retarget points both transports at another server (mcpURL, and v1Base
// for the Bridge Protocol v1); the new server is tried with MCP first again.
func (a *Auto) Retarget(mcpURL, v1Base string) {
	a.MCP.SetURL(mcpURL)
	a.V1.SetBase(v1Base)
	a.onV1.Store(false)
}

// Forwarder is the MCP transport while it is the one in use, for requests
// other than tools (resources, prompts); nil once on v1.
func (a *Auto) Forwarder() *MCP {
	if a.onV1.Load() {
		return nil
	}
	return a.MCP
}

// Call implements Transport.
func (a *Auto) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	if a.onV1.Load() {
		return a.V1.Call(ctx, name, args)
	}
	res, err := a.MCP.Call(ctx, name, args)
	if err == nil || !notRun(err) {
		return res, err
	}
	a.fallBack(err)
	return a.V1.Call(ctx, name, args)
}

// notRun reports whether an MCP failure proves the call did not run.
func notRun(err error) bool {
	var re *RPCError
	if errors.As(err, &re) {
		return re.Code == -32601
	}
	var he *HTTPError
	if errors.As(err, &he) {
		switch he.Status {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			return true
		}
	}
	return false
}
