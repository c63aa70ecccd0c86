package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge/upstream"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// TestForwardsPromptsAndResources: behind the bridge, a server with real
// sessions (our own HTTP layer over an mcp-go server) that offers prompts
// and resources: they are listed and read through the bridge as the server
// gives them, its errors pass with their code, and a prompt added later
// reaches the client with one prompts/list_changed.
func TestForwardsPromptsAndResources(t *testing.T) {
	t.Parallel()
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("upstream", "1.0", server.WithToolCapabilities(true), server.WithPromptCapabilities(true),
		server.WithResourceCapabilities(false, false), server.WithHooks(hooks))
	s.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo"), nil
	})
	s.AddPrompt(mcp.NewPrompt("summarise", mcp.WithPromptDescription("Summarise a note"), mcp.WithArgument("topic", mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("summary", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarise "+req.Params.Arguments["topic"])),
			}), nil
		})
	s.AddResource(mcp.NewResource("memo://one", "one", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "memo://one", MIMEType: "text/plain", Text: "first memo"}}, nil
		})
	h, err := httpapi.New(protocol.New(s, protocol.Options{}), httpapi.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)

	m := &upstream.MCP{URL: ts.URL + "/mcp", HTTP: http.DefaultClient, ClientName: "test", ClientVersion: "1"}
	var l logs
	b := New(m, Options{Forwarder: func() Forwarder { return m }, Poll: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&l, nil))})
	c := run(t, b)
	if id, _ := m.Session(); id == "" {
		t.Error("no session with a server that has them")
	}
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	c.mu.Lock()
	_ = json.Unmarshal(c.got[0]["result"], &init)
	c.mu.Unlock()
	if init.Capabilities["prompts"] == nil || init.Capabilities["resources"] == nil {
		t.Errorf("capabilities %v: prompts and resources not offered", init.Capabilities)
	}
	if got := string(c.request("prompts/list", nil)["result"]); !strings.Contains(got, `"name":"summarise"`) || !strings.Contains(got, `"required":true`) {
		t.Errorf("prompts/list: %s", got)
	}
	if got := string(c.request("prompts/get", map[string]any{"name": "summarise", "arguments": map[string]any{"topic": "Plan"}})["result"]); !strings.Contains(got, `"text":"Summarise Plan"`) || !strings.Contains(got, `"role":"user"`) {
		t.Errorf("prompts/get: %s", got)
	}
	if got := string(c.request("resources/list", nil)["result"]); !strings.Contains(got, `"uri":"memo://one"`) {
		t.Errorf("resources/list: %s", got)
	}
	if got := string(c.request("resources/templates/list", nil)["result"]); got != `{"resourceTemplates":[]}` {
		t.Errorf("resources/templates/list shows the bridge's own catch-all: %s", got)
	}
	if got := string(c.request("resources/read", map[string]any{"uri": "memo://one"})["result"]); got != `{"contents":[{"uri":"memo://one","mimeType":"text/plain","text":"first memo"}]}` {
		t.Errorf("resources/read: %s", got)
	}
	ans := c.request("resources/read", map[string]any{"uri": "memo://nope"})
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(ans["error"], &e); err != nil || e.Code != mcp.RESOURCE_NOT_FOUND || !strings.Contains(e.Message, "memo://nope") {
		t.Errorf("reading a missing resource: %s %s", ans["error"], ans["result"])
	}
	s.AddPrompt(mcp.NewPrompt("later"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("later", nil), nil
	})
	testenv.Eventually(t, 10*time.Second, "prompts/list_changed", func() bool { return c.notifications("notifications/prompts/list_changed") == 1 })
	if got := string(c.request("prompts/list", nil)["result"]); !strings.Contains(got, `"name":"later"`) {
		t.Errorf("prompts/list after the change: %s", got)
	}
	if n := c.notifications("notifications/tools/list_changed"); n != 0 {
		t.Errorf("%d tools/list_changed for a change of prompts", n)
	}
}
