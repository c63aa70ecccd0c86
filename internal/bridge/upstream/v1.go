package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
)

// V1 speaks the Bridge Protocol v1 under Base + "/bridge/v1". The API key
// is never sent to it (the contract has none there).
type V1 struct {
	// Base is the server's root, e.g. http://127.0.0.1:3000.
	Base string
	HTTP *http.Client

	mu   sync.Mutex
	base string // set by SetBase; Base until then
}

// Name implements Transport.
func (*V1) Name() string { return "v1" }

// SetBase points the transport at another server root.
func (v *V1) SetBase(base string) {
	v.mu.Lock()
	v.base = base
	v.mu.Unlock()
}

func (v *V1) url(path string) string {
	v.mu.Lock()
	base := v.base
	v.mu.Unlock()
	if base == "" {
		base = v.Base
	}
	return base + "/bridge/v1" + path
}

// Health implements Transport: GET /health must say status ok.
func (v *V1) Health(ctx context.Context) error {
	_, body, err := doJSON(ctx, v.HTTP, http.MethodGet, v.url("/health"), nil, nil)
	if err != nil {
		return err
	}
	var h struct {
		Status          string `json:"status"`
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		return fmt.Errorf("the health answer is not JSON: %s", snippet(body))
	}
	if h.Status != "ok" {
		return fmt.Errorf("the server says its status is %q", h.Status)
	}
	return nil
}

// Tools implements Transport with the server's own hash.
func (v *V1) Tools(ctx context.Context) ([]Tool, string, error) {
	_, body, err := doJSON(ctx, v.HTTP, http.MethodGet, v.url("/tools"), nil, nil)
	if err != nil {
		return nil, "", err
	}
	var out struct {
		Tools []Tool `json:"tools"`
		Hash  string `json:"hash"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, "", fmt.Errorf("the tool list is not JSON: %s", snippet(body))
	}
	if out.Hash == "" {
		// A server without the hash: ours over what it sent.
		h, err := canonicalHash(out.Tools)
		if err != nil {
			return nil, "", err
		}
		out.Hash = h
	}
	return out.Tools, out.Hash, nil
}

// Call implements Transport. A tool failure (200, success false) is a
// Result with IsError; statuses are *HTTPError.
func (v *V1) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	req, err := json.Marshal(map[string]json.RawMessage{"arguments": args})
	if err != nil {
		return nil, err
	}
	_, body, err := doJSON(ctx, v.HTTP, http.MethodPost, v.url("/tools/"+url.PathEscape(name)+"/call"), req, nil)
	if err != nil {
		return nil, err
	}
	var out struct {
		Success           bool              `json:"success"`
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("the answer to %s is not JSON: %s", name, snippet(body))
	}
	return &Result{Content: out.Content, StructuredContent: out.StructuredContent, IsError: out.IsError || !out.Success}, nil
}
