package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// `obsidian-mcp bridge` in front of `obsidian-mcp serve`, both the built
// binary, driven by the official SDK clients as Claude Desktop would start
// a stdio server: every tool gives through the bridge what it gives over
// stdio directly (the same checks, and over MCP the same bytes).

var timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)

// What differs between two runs of the same calls besides the times: a
// change's id (its time and random letters), and the client the change
// record names (the SDK over stdio, the bridge through it), in the
// structured answer and in its text.
var (
	changeID         = regexp.MustCompile(`\d{8}T\d{6}\.\d{6}Z-[0-9a-f]{6}`)
	changeClient     = regexp.MustCompile(`\\?"client\\?":\s*\\?"[^"\\]*\\?"`)
	changeClientText = regexp.MustCompile(`client: [^\\"]*`)
)

// comparable is s with times, change ids and clients blanked.
func comparable(s string) string {
	s = changeID.ReplaceAllString(s, "<id>")
	s = changeClient.ReplaceAllString(s, `"client":<client>`)
	s = changeClientText.ReplaceAllString(s, `client: <client>`)
	return timestamp.ReplaceAllString(s, "<time>")
}

// TestStdioBridgeTypeScriptSDK: every tool through the bridge, in both
// transports, and over MCP the very outcomes of a direct stdio session.
func TestStdioBridgeTypeScriptSDK(t *testing.T) {
	outside(t)
	t.Parallel()
	direct := obsidiantest.Install(t, obsidiantest.Scenario{})
	want := runTSCalls(t, direct, "typescript-sdk", map[string]any{"env": map[string]string{"OBSIDIAN_BIN": direct.Bin}})
	for _, transport := range []string{"mcp", "v1"} {
		t.Run(transport, func(t *testing.T) {
			f := obsidiantest.Install(t, obsidiantest.Scenario{})
			s := serve(t, nil, "OBSIDIAN_BIN="+f.Bin)
			client := "typescript-sdk"
			if transport == "v1" {
				client += viaV1
			}
			got := runTSCalls(t, f, client, map[string]any{"args": []string{"bridge", "--url", s.url, "--transport", transport}})
			if transport == "mcp" {
				for i := range want.Steps {
					// The two vaults' notes were written at other instants.
					w, g := comparable(want.Steps[i].String()), comparable(got.Steps[i].String())
					if w != g {
						t.Errorf("call %d %s: over stdio\n%s\nthrough the bridge\n%s", i, everyTool[i].Tool, w, g)
					}
				}
			}
			if t.Failed() {
				t.Logf("bridge stderr:\n%s\nserve stderr:\n%s", got.Stderr, s.stderr)
			}
		})
	}
}

// TestStdioBridgeGoSDK: the Go SDK's stdio client through the bridge:
// every tool, and the notes as resources, forwarded from serve.
func TestStdioBridgeGoSDK(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	s := serve(t, nil, "OBSIDIAN_BIN="+f.Bin)
	stderr := &obsidiantest.Buffer{}
	cmd := exec.Command(binary, "bridge", "--url", s.url)
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-bridge-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	var got []outcome
	for _, st := range everyTool {
		got = append(got, goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: st.Tool, Arguments: st.Arguments})))
	}
	checkSteps(t, f, "go-sdk", got)
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "obsidian-mcp://note/Notes/Seed.md"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "# Seed") || rr.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("resources/read through the bridge: %+v, %v", rr, err)
	}
	res, err := cs.ListResources(t.Context(), nil)
	if err != nil || len(res.Resources) == 0 {
		t.Errorf("resources/list through the bridge: %+v, %v", res, err)
	}
	tpl, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != "obsidian-mcp://note/{+path}" {
		b, _ := json.Marshal(tpl)
		t.Errorf("resources/templates/list through the bridge: %s, %v", b, err)
	}
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "obsidian-mcp://note/Nope.md"})
	if err == nil || !strings.Contains(err.Error(), "Nope.md") {
		t.Errorf("reading a missing note through the bridge: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if t.Failed() {
		t.Logf("bridge stderr:\n%s\nserve stderr:\n%s", stderr, s.stderr)
	}
}

// TestStdioBridgeFollowsServer: serve restarted on another port (--url-file)
// is found again without restarting the bridge, and the client is not
// told of a change, as the tools are the same.
func TestStdioBridgeFollowsServer(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	urlFile := filepath.Join(t.TempDir(), "serve.url")
	first := serve(t, []string{"--url-file", urlFile}, "OBSIDIAN_BIN="+f.Bin)
	if data, err := os.ReadFile(urlFile); err != nil || strings.TrimSpace(string(data)) != first.url {
		t.Fatalf("--url-file holds %q, %v; serve listens at %s", data, err, first.url)
	}
	cmd, stderr, client, changed := urlFileBridge(urlFile)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer cs.Close()
	read := func() (string, bool) {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}})
		if err != nil || len(res.Content) == 0 {
			t.Fatalf("call: %v", err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if text, isErr := read(); isErr || text != "alpha" {
		t.Fatalf("first read: %q %v", text, isErr)
	}
	first.stop(t)
	if _, err := os.Stat(urlFile); !os.IsNotExist(err) {
		t.Errorf("serve left its URL file behind: %v", err)
	}
	if text, isErr := read(); !isErr || !strings.HasPrefix(text, "Error: ") {
		t.Errorf("read while serve is down: %q isError=%v", text, isErr)
	}
	second := serve(t, []string{"--url-file", urlFile}, "OBSIDIAN_BIN="+f.Bin)
	if second.url == first.url {
		t.Fatalf("serve came back on the same port %s", second.url)
	}
	deadline := time.Now().Add(20 * time.Second) // the bridge looks again at its next poll (5 s)
	for {
		text, isErr := read()
		if !isErr && text == "alpha" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bridge did not follow serve to %s: last %q\n%s", second.url, text, stderr)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "the server moved") || !strings.Contains(stderr.String(), second.url) {
		t.Errorf("the move was not logged:\n%s", stderr)
	}
	// The bridge says in its log each time it tells the client of a change;
	// once it has exited, its log is complete.
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if waitErr := cmd.Wait(); waitErr != nil && !strings.Contains(waitErr.Error(), "Wait was already called") {
		t.Logf("bridge exit: %v", waitErr)
	}
	if strings.Contains(stderr.String(), "the server's tools changed") {
		t.Errorf("the bridge told of a change for a server that came back with the same tools:\n%s", stderr)
	}
	select {
	case <-changed:
		t.Error("tools/list_changed for a server that came back with the same tools")
	default:
	}
}

// TestStdioBridgeStartsWithServerDown: the Go SDK's stdio client starts
// the bridge while no server is there. initialize is answered at once, no
// tools are listed, and a call says which server is missing and what to
// do; once serve comes up (found through --url-file), the client is told
// that the tools changed, and they work. Closing the client's end ends the
// bridge at once, as a client quitting expects.
func TestStdioBridgeStartsWithServerDown(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	urlFile := filepath.Join(t.TempDir(), "serve.url")
	cmd, stderr, client, changed := urlFileBridge(urlFile)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect with the server down: %v\n%s", err, stderr)
	}
	t.Logf("initialized in %s with the server down", time.Since(start).Round(time.Millisecond))
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 0 {
		t.Errorf("tools with the server down: %+v, %v", tools, err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}})
	if err != nil || !res.IsError || len(res.Content) == 0 {
		t.Fatalf("a call with the server down: %+v, %v", res, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "http://127.0.0.1:1") || !strings.Contains(text, "cannot be reached") || !strings.Contains(text, "obsidian-mcp serve") {
		t.Errorf("a call with the server down says %q", text)
	}
	s := serve(t, []string{"--url-file", urlFile}, "OBSIDIAN_BIN="+f.Bin)
	select {
	case <-changed:
	case <-time.After(30 * time.Second): // the back-off reaches 8 s by then
		t.Fatalf("no tools/list_changed once serve listened at %s:\n%s", s.url, stderr)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "alpha" {
		t.Errorf("a call once serve is up: %+v, %v\n%s", res, err, stderr)
	}
	closed := time.Now()
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if waitErr := cmd.Wait(); waitErr != nil && !strings.Contains(waitErr.Error(), "Wait was already called") {
		t.Logf("bridge exit: %v", waitErr)
	}
	if took := time.Since(closed); took > 10*time.Second {
		t.Errorf("the bridge took %s to exit after its input closed", took)
	}
}

// urlFileBridge is a bridge that finds its server through urlFile (port 1
// before that: nothing there), and a Go SDK client that counts the tool
// list changes it is told of.
func urlFileBridge(urlFile string) (*exec.Cmd, *obsidiantest.Buffer, *mcp.Client, chan struct{}) {
	stderr := &obsidiantest.Buffer{}
	cmd := exec.Command(binary, "bridge", "--url-file", urlFile, "--port", "1")
	cmd.Stderr = stderr
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-bridge-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	return cmd, stderr, client, changed
}
