package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// The built server, driven by independent MCP clients, each pinned: the
// official Go SDK (go.mod), the official TypeScript SDK and the MCP
// Inspector's CLI (scripts/clients/package-lock.json, installed by `npm ci
// --prefix scripts/clients`). Hand-written JSON once hid lost answers:
// real clients order their members as they please (the TypeScript SDK puts
// the id last) and call a tool the moment the handshake is done.

// outcome is one tool call's outcome as a client reports it.
type outcome struct {
	Result *struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	} `json:"result"`
	Error  *rpcError `json:"error"`
	Thrown string    `json:"thrown"` // an error that is not a JSON-RPC error
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func (o outcome) String() string { b, _ := json.Marshal(o); return string(b) }

// step is one call every client makes, in order, on a fresh vault of the
// fake CLI, and what its outcome must be.
type step struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	check     func(client string, o outcome) error
}

// data is the result's structuredContent.data of a successful call.
func data(o outcome) (map[string]any, error) {
	if o.Result == nil || o.Result.IsError {
		return nil, fmt.Errorf("want a result, got %s", o)
	}
	d, ok := o.Result.StructuredContent["data"].(map[string]any)
	if !ok || o.Result.StructuredContent["success"] != true {
		return nil, fmt.Errorf("no success and data in %s", o)
	}
	return d, nil
}

func wantData(key string, want any) func(string, outcome) error {
	return func(_ string, o outcome) error {
		d, err := data(o)
		if err != nil {
			return err
		}
		if got := d[key]; fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("data.%s = %v, want %v", key, got, want)
		}
		return nil
	}
}

func wantContent(content string) func(string, outcome) error {
	return func(_ string, o outcome) error {
		// The note, then a line for the model naming its version.
		if o.Result == nil || o.Result.IsError || o.Result.StructuredContent["content"] != content ||
			len(o.Result.Content) != 2 || o.Result.Content[0].Text != content ||
			!strings.Contains(o.Result.Content[1].Text, fmt.Sprintf("etag %s", o.Result.StructuredContent["etag"])) {
			return fmt.Errorf("want the content %q, got %s", content, o)
		}
		return nil
	}
}

// wantMarkdown wants a raw answer whose text is markdown and whose
// structured values hold the first path.
func wantMarkdown(markdown, firstPath string) func(string, outcome) error {
	return func(_ string, o outcome) error {
		if o.Result == nil || o.Result.IsError || len(o.Result.Content) == 0 || o.Result.Content[0].Text != markdown ||
			o.Result.StructuredContent["markdown"] != markdown || !strings.Contains(fmt.Sprint(o.Result.StructuredContent["values"]), "path:"+firstPath) {
			return fmt.Errorf("want the Markdown %q with %s, got %s", markdown, firstPath, o)
		}
		return nil
	}
}

// wantImage wants the file's bytes as image content, after the text of
// its facts.
func wantImage(mime, raw string) func(string, outcome) error {
	return func(_ string, o outcome) error {
		if o.Result == nil || o.Result.IsError || len(o.Result.Content) != 2 || o.Result.Content[1].Type != "image" ||
			o.Result.Content[1].MimeType != mime || o.Result.Content[1].Data != base64.StdEncoding.EncodeToString([]byte(raw)) ||
			o.Result.StructuredContent["image"] != true {
			return fmt.Errorf("want %s image content of %q, got %s", mime, raw, o)
		}
		return nil
	}
}

// wantAt checks the value at a path into structuredContent.data: keys of
// objects, indexes of arrays, and "*paths" for the paths of a list of
// entries, e.g. wantAt("Notes/Seed.md", "results", 0, "path").
func wantAt(want any, path ...any) func(string, outcome) error {
	return func(_ string, o outcome) error {
		d, err := data(o)
		if err != nil {
			return err
		}
		var v any = d
		for _, k := range path {
			switch k := k.(type) {
			case string:
				if k == "*paths" { // the paths of a list of entries
					var ps []any
					list, _ := v.([]any)
					for _, e := range list {
						ps = append(ps, e.(map[string]any)["path"])
					}
					v = ps
					continue
				}
				m, ok := v.(map[string]any)
				if !ok {
					return fmt.Errorf("no %q in %v (data %v)", k, v, d)
				}
				v = m[k]
			case int:
				a, ok := v.([]any)
				if !ok || k >= len(a) {
					return fmt.Errorf("no item %d in %v (data %v)", k, v, d)
				}
				v = a[k]
			}
		}
		if fmt.Sprint(v) != fmt.Sprint(want) {
			return fmt.Errorf("data%v = %v, want %v", path, v, want)
		}
		return nil
	}
}

// seed is a note for the read-side tools: frontmatter, a heading, tags and
// links, one of them unresolved.
const seed = "---\ntags: [idea]\nstatus: draft\n---\n# Seed\nSee [[Inbox/Idea]] and [[Missing]]. #garden\n"

// idea is Inbox/Idea.md after "first" is appended "second" and prepended
// "zeroth": each added paragraph a block of its own.
const idea = "zeroth\n\nfirst\n\nsecond"

// sprouted is seed after the patch appends a list item under # Seed: a
// new block after the paragraph.
const sprouted = seed + "\n- sprouted\n"

// goSDKClosing is how the Go SDK reports an error answer whose code is
// -32003 or -32004: its jsonrpc2 layer keeps those codes for "client is
// closing" and "server is closing" (WireError.Is compares codes only), so
// CallTool returns mcp.ErrConnectionClosed with our message as text and
// the error object's data out of reach. The session itself stays usable.
// Our codes come from the stdio contract; README ("Tested clients") says
// what to do about it.
const goSDKClosing = `connection closed: calling "tools/call": `

// viaV1 ends the name of a client that reaches the server through the
// stdio bridge over the Bridge Protocol v1.
const viaV1 = "+bridge-v1"

func wantError(code int, errorCode, inMessage string) func(string, outcome) error {
	return func(client string, o outcome) error {
		if client == "go-sdk" && (code == -32003 || code == -32004) {
			if !strings.HasPrefix(o.Thrown, goSDKClosing) || !strings.Contains(o.Thrown, inMessage) {
				return fmt.Errorf("want the Go SDK's %q wrapping %q, got %s", goSDKClosing, inMessage, o)
			}
			return nil
		}
		if strings.HasSuffix(client, viaV1) {
			// The Bridge Protocol v1 carries a failure as an isError result:
			// "Error: <message> (<ERROR_CODE>, <code>)" and the hint; bad
			// arguments are its 400 INVALID_ARGUMENTS, which the bridge
			// words as "Error: <message> (HTTP 400 INVALID_ARGUMENTS)".
			named := fmt.Sprintf("(%s, %d)", errorCode, code)
			if code == -32602 {
				named = "(HTTP 400 INVALID_ARGUMENTS)"
			}
			if o.Result == nil || !o.Result.IsError || len(o.Result.Content) == 0 ||
				!strings.Contains(o.Result.Content[0].Text, named) || !strings.Contains(o.Result.Content[0].Text, inMessage) {
				return fmt.Errorf("want an isError result naming %s %d and %q, got %s", errorCode, code, inMessage, o)
			}
			return nil
		}
		e := o.Error
		if e == nil || e.Code != code || e.Data["errorCode"] != errorCode || !strings.Contains(e.Message, inMessage) ||
			e.Data["hint"] == nil || e.Data["hint"] == "" {
			return fmt.Errorf("want error %d %s with a hint and %q in the message, got %s", code, errorCode, inMessage, o)
		}
		return nil
	}
}

// everyTool calls each of the server's tools through the CLI backend, then
// fails two ways. The first is sent the moment the handshake is done.
var everyTool = []step{
	{Tool: "obsidian_create_note", Arguments: map[string]any{"path": "Inbox/Idea.md", "content": "first"}, check: wantData("path", "Inbox/Idea.md")},
	{Tool: "obsidian_append_to_note", Arguments: map[string]any{"path": "Inbox/Idea.md", "content": "second"}, check: wantData("bytes", 6)},
	{Tool: "obsidian_prepend_to_note", Arguments: map[string]any{"name": "Idea", "content": "zeroth"}, check: wantData("path", "Inbox/Idea.md")},
	{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Inbox/Idea.md"}, check: wantContent(idea)},
	{Tool: "obsidian_create_note", Arguments: map[string]any{"path": "Notes/Seed.md", "content": seed}, check: wantData("path", "Notes/Seed.md")},
	{Tool: "obsidian_search_notes", Arguments: map[string]any{"query": "seed garden"}, check: wantAt("Notes/Seed.md", "results", 0, "path")},
	{Tool: "obsidian_list_files", Arguments: map[string]any{"recursive": true, "ext": "md"}, check: wantAt("[Inbox/Idea.md Notes/Seed.md]", "items", "*paths")},
	{Tool: "obsidian_read_notes", Arguments: map[string]any{"paths": []string{"Notes/Seed.md"}, "names": []string{"Nope"}}, check: wantAt("FILE_NOT_FOUND", "notes", 1, "error", "errorCode")},
	{Tool: "obsidian_get_outline", Arguments: map[string]any{"name": "Seed"}, check: wantAt("Seed", "headings", 0, "text")},
	{Tool: "obsidian_note_stats", Arguments: map[string]any{"name": "Seed"}, check: wantData("words", 7)},
	{Tool: "obsidian_get_properties", Arguments: map[string]any{"path": "Notes/Seed.md"}, check: wantAt("draft", "properties", 1, "value")},
	{Tool: "obsidian_get_links", Arguments: map[string]any{"path": "Notes/Seed.md"}, check: wantAt("false", "links", 1, "resolved")},
	{Tool: "obsidian_get_backlinks", Arguments: map[string]any{"path": "Inbox/Idea.md"}, check: wantAt("Notes/Seed.md", "items", 0, "path")},
	{Tool: "obsidian_list_unresolved_links", Arguments: map[string]any{}, check: wantAt("Missing", "items", 0, "target")},
	{Tool: "obsidian_list_orphans", Arguments: map[string]any{"limit": 5}, check: wantAt("[Notes/Seed.md]", "items")},
	{Tool: "obsidian_list_tags", Arguments: map[string]any{"sort": "count"}, check: wantAt(2, "total")},
	{Tool: "obsidian_list_tagged_notes", Arguments: map[string]any{"tag": "#garden"}, check: wantAt("[Notes/Seed.md]", "items")},
	{Tool: "obsidian_list_properties", Arguments: map[string]any{}, check: wantAt("status", "items", 0, "name")},
	{Tool: "obsidian_patch_note", Arguments: map[string]any{"path": "Notes/Seed.md", "heading": "Seed", "operation": "append", "content": "- sprouted"},
		check: wantData("etag", note.ETag([]byte(sprouted)))},
	{Tool: "obsidian_patch_note", Arguments: map[string]any{"path": "Notes/Seed.md", "property": "status", "operation": "replace", "content": "done", "if_match": note.ETag([]byte(seed))},
		check: wantError(-32007, "REVISION_CONFLICT", "changed since it was read")},
	{Tool: "obsidian_set_property", Arguments: map[string]any{"path": "Notes/Seed.md", "key": "rank", "value": 2}, check: wantData("changed", true)},
	{Tool: "obsidian_remove_property", Arguments: map[string]any{"path": "Notes/Seed.md", "key": "rank"},
		check: wantData("etag", note.ETag([]byte(sprouted)))},
	{Tool: "obsidian_update_tags", Arguments: map[string]any{"path": "Notes/Seed.md", "add": []string{"seedling"}}, check: wantData("added", []any{"seedling"})},
	{Tool: "obsidian_rename_tag", Arguments: map[string]any{"from": "garden", "to": "yard", "dry_run": true}, check: wantData("uses", 1)},
	{Tool: "obsidian_rename_heading", Arguments: map[string]any{"path": "Notes/Seed.md", "heading": "Seed", "to": "Sprout", "dry_run": true}, check: wantData("from", "Seed")},
	{Tool: "obsidian_daily_note", Arguments: map[string]any{"operation": "append", "date": "2026-01-05", "content": "- planted"}, check: wantData("path", "2026-01-05.md")},
	{Tool: "obsidian_replace_in_note", Arguments: map[string]any{"path": "Notes/Seed.md", "find": "- sprouted", "replace": "- grown", "dry_run": true},
		check: wantData("diff", "--- a/Notes/Seed.md\n+++ b/Notes/Seed.md\n@@ -5,4 +5,4 @@\n # Seed\n See [[Inbox/Idea]] and [[Missing]]. #garden\n \n-- sprouted\n+- grown\n")},
	{Tool: "obsidian_replace_in_vault", Arguments: map[string]any{"find": "- sprouted", "replace": "- grown", "folder": "Notes"}, check: wantData("notes", 1)},
	{Tool: "obsidian_list_templates", Arguments: map[string]any{}, check: wantError(-32003, "FILE_NOT_FOUND", "no template folder")},
	{Tool: "obsidian_list_tasks", Arguments: map[string]any{"status": "any"}, check: wantData("total", 0)},
	{Tool: "obsidian_update_task", Arguments: map[string]any{"path": "Notes/Seed.md", "operation": "toggle", "line": 1, "text": "water the seeds"}, check: wantError(-32010, "TASK_NOT_FOUND", "no task at line 1")},
	{Tool: "obsidian_edit_canvas", Arguments: map[string]any{"path": "Boards/Map.canvas", "create": true, "add": []any{map[string]any{"id": "s", "type": "file", "file": "Notes/Seed.md"}}},
		check: wantData("ids", []any{"s"})},
	{Tool: "obsidian_read_canvas", Arguments: map[string]any{"path": "Boards/Map.canvas"}, check: wantAt("Notes/Seed.md", "nodes", 0, "file")},
	{Tool: "obsidian_create_note", Arguments: map[string]any{"path": "Notes/dot.gif", "content": "GIF89a"}, check: wantData("path", "Notes/dot.gif")},
	{Tool: "obsidian_read_attachment", Arguments: map[string]any{"path": "Notes/dot.gif"}, check: wantImage("image/gif", "GIF89a")},
	{Tool: "obsidian_create_note", Arguments: map[string]any{"path": "Notes/Garden.base", "content": "filters: 'file.hasTag(\"garden\")'\nviews:\n  - type: table\n    name: Beds\n"},
		check: wantData("path", "Notes/Garden.base")},
	{Tool: "obsidian_query_base", Arguments: map[string]any{"path": "Notes/Garden.base"}, check: wantAt("Notes/Seed.md", "rows", 0, "path")},
	{Tool: "obsidian_query_dataview", Arguments: map[string]any{"query": "LIST FROM #garden WHERE status"}, check: wantMarkdown("- [[Notes/Seed.md|Seed]]\n", "Notes/Seed.md")},
	{Tool: "obsidian_file_info", Arguments: map[string]any{"name": "Idea"}, check: wantData("size", len(idea))},
	{Tool: "obsidian_open_note", Arguments: map[string]any{"path": "Inbox/Idea.md"}, check: wantData("path", "Inbox/Idea.md")},
	{Tool: "obsidian_rename_note", Arguments: map[string]any{"path": "Inbox/Idea.md", "new_name": "Plan idea"}, check: wantData("to", "Inbox/Plan idea.md")},
	{Tool: "obsidian_move_note", Arguments: map[string]any{"path": "Inbox/Plan idea.md", "to": "Archive"}, check: wantData("to", "Archive/Plan idea.md")},
	{Tool: "obsidian_folder", Arguments: map[string]any{"operation": "create", "folder": "Projects/2027"}, check: wantData("changed", true)},
	{Tool: "obsidian_folder", Arguments: map[string]any{"operation": "move", "folder": "Projects/2027", "to": "Later/2027"}, check: wantData("to", "Later/2027")},
	{Tool: "obsidian_folder", Arguments: map[string]any{"operation": "delete", "folder": "Later/2027"}, check: wantData("trash_path", ".trash/2027")},
	{Tool: "obsidian_history", Arguments: map[string]any{"tool": "obsidian_folder", "limit": 1}, check: wantAt("obsidian_folder", "changes", 0, "tool")},
	// Each client names itself differently, so the undo here is of a
	// change the record does not have; undos that land are the vault
	// server's tests'.
	{Tool: "obsidian_undo", Arguments: map[string]any{"id": "20260101T000000.000000Z-000000"}, check: wantError(-32602, "INVALID_PARAMS", "no such change")},
	{Tool: "obsidian_read_note", Arguments: map[string]any{"name": "Plan idea"}, check: wantContent(idea)},
	{Tool: "obsidian_delete_note", Arguments: map[string]any{"path": "Archive/Plan idea.md"}, check: wantData("permanent", false)},
	{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Archive/Plan idea.md"}, check: wantError(-32003, "FILE_NOT_FOUND", "Archive/Plan idea.md")},
	{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "../outside.md"}, check: wantError(-32602, "INVALID_PARAMS", "`path`")},
}

// checkSteps applies everyTool's checks to what client reported, and checks
// that every tool was called and the CLI did the writes.
func checkSteps(t *testing.T, f *obsidiantest.Fake, client string, got []outcome) {
	t.Helper()
	if len(got) != len(everyTool) {
		t.Fatalf("%d outcomes for %d calls", len(got), len(everyTool))
	}
	called := map[string]bool{}
	for i, s := range everyTool {
		called[s.Tool] = true
		if err := s.check(client, got[i]); err != nil {
			t.Errorf("call %d, %s %v: %v", i, s.Tool, s.Arguments, err)
		}
	}
	for _, name := range toolNames() {
		if !called[name] {
			t.Errorf("everyTool does not call %s", name)
		}
	}
	commands := map[string]bool{}
	for _, argv := range f.Calls() {
		if strings.HasPrefix(argv[0], "vault=") && len(argv) > 1 {
			argv = argv[1:] // a server given a vault name
		}
		commands[argv[0]] = true
	}
	for _, c := range []string{"create", "append", "prepend", "open", "rename", "move", "delete"} {
		if !commands[c] {
			t.Errorf("the CLI never ran %q (it ran %v)", c, commands)
		}
	}
	for _, p := range []string{"Inbox/Idea.md", "Inbox/Plan idea.md", "Archive/Plan idea.md"} {
		if _, ok := f.Note(p); ok {
			t.Errorf("%s is still in the vault after the rename, move and delete", p)
		}
	}
}

// checkToolList checks that tools/list gave every tool of the registry.
func checkToolList(t *testing.T, names []string) {
	t.Helper()
	if !slices.Equal(names, toolNames()) {
		t.Errorf("tools/list = %v, want %v", names, toolNames())
	}
}

// toolNames are the registry's tools, sorted by name as tools/list gives them.
func toolNames() []string {
	var names []string
	for _, st := range tools.WithoutCommands(tools.All(tools.Vault{})) { // opt-in: TestCommandsOptIn
		names = append(names, st.Tool.Name)
	}
	slices.Sort(names)
	return names
}

// ---- the official Go SDK ----

// goSDK connects the Go SDK's client to a fresh server process.
func goSDK(t *testing.T, terminate time.Duration, env ...string) (*mcp.ClientSession, *obsidiantest.Buffer) {
	t.Helper()
	return goSDKWith(t, terminate, nil, env...)
}

// goSDKWith is goSDK with client options (an elicitation handler, say).
func goSDKWith(t *testing.T, terminate time.Duration, opts *mcp.ClientOptions, env ...string) (*mcp.ClientSession, *obsidiantest.Buffer) {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), env...)
	stderr := &obsidiantest.Buffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-test", Version: "1.0.0"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %s)", err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, stderr
}

// goOutcome turns the Go SDK's answer into an outcome.
func goOutcome(res *mcp.CallToolResult, err error) outcome {
	var o outcome
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		o.Error = &rpcError{Code: int(rpc.Code), Message: rpc.Message}
		_ = json.Unmarshal(rpc.Data, &o.Error.Data)
	case err != nil:
		o.Thrown = err.Error()
	default:
		b, _ := json.Marshal(map[string]any{"result": res})
		_ = json.Unmarshal(b, &o)
	}
	return o
}

func TestGoSDKClient(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	cs, _ := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin)
	call := func(s step) outcome {
		return goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: s.Tool, Arguments: s.Arguments}))
	}
	got := []outcome{call(everyTool[0])} // at once, before any tools/list
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	checkToolList(t, names)
	for _, s := range everyTool[1:] {
		got = append(got, call(s))
	}
	checkSteps(t, f, "go-sdk", got)
	if v := cs.InitializeResult(); v == nil || v.ServerInfo.Version != "9.9.9-test" {
		t.Errorf("initialize result %+v", v)
	}
	// The notes as resources: listed (Seed and a daily note are what
	// everyTool leaves), read
	// through the template, and a missing one refused.
	var uris []string
	for r, err := range cs.Resources(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if want := []string{"obsidian-mcp://note/2026-01-05.md", "obsidian-mcp://note/Notes/Seed.md"}; !slices.Equal(uris, want) {
		t.Errorf("resources = %q, want %q", uris, want)
	}
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "obsidian-mcp://note/Notes/Seed.md"})
	onDisk, _ := f.Note("Notes/Seed.md") // its link followed the renamed note
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != onDisk || rr.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("read resource: %+v, %v; want %q", rr, err, onDisk)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "obsidian-mcp://note/Nope.md"}); err == nil || !strings.Contains(err.Error(), "Nope.md") {
		t.Errorf("read of a missing note: %v", err)
	}
	tpls, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tpls.ResourceTemplates) != 1 || tpls.ResourceTemplates[0].URITemplate != "obsidian-mcp://note/{+path}" {
		t.Errorf("resource templates: %+v, %v", tpls, err)
	}
}

// TestGoSDKCancel: cancelling a call's context makes the Go SDK send
// notifications/cancelled; the server stops the call's CLI process and
// goes on serving.
func TestGoSDKCancel(t *testing.T) {
	t.Parallel()
	f, pidfile := hungCLI(t)
	cs, stderr := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TIMEOUT=10m")
	cancelHungCall(t, cs, pidfile)
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), "outcome=CANCELLED") {
		t.Errorf("the server did not log the call as cancelled:\n%s", stderr)
	}
}

// cancelHungCall starts a call whose CLI hangs, cancels it once its CLI
// runs, and checks that the call returns cancelled, its CLI process group
// stops, and the session still answers a ping.
func cancelHungCall(t *testing.T, cs *mcp.ClientSession, pidfile string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}})
		done <- err
	}()
	pid := obsidiantest.GrandchildPID(t, pidfile) // the call is running
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v", err)
	}
	grandchildEnds(t, pid)
	if err := cs.Ping(t.Context(), nil); err != nil {
		t.Errorf("ping after the cancel: %v", err)
	}
}

// TestGoSDKCloseWithCallsInFlight: the client closes its connection while
// calls are in flight. The Go SDK's Close waits for them before it closes
// stdin, so each gets its answer; then the server exits by itself (status
// 0), before the client would resort to SIGTERM.
func TestGoSDKCloseWithCallsInFlight(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	cs, stderr := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin)
	var wg sync.WaitGroup
	outcomes := make([]outcome, 16)
	for i := range outcomes {
		wg.Go(func() {
			outcomes[i] = goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "obsidian_file_info", Arguments: map[string]any{"path": "A.md"}}))
		})
	}
	// The server is running the calls.
	testenv.Eventually(t, 20*time.Second, "a call reaching the CLI", func() bool { return len(f.Calls()) > 0 })
	if err := cs.Close(); err != nil { // waits for the process to exit
		t.Errorf("close: %v (stderr %s)", err, stderr)
	}
	wg.Wait()
	for i, o := range outcomes {
		if err := wantData("size", 5)("go-sdk", o); err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	logs := stderr.String()
	if !strings.Contains(logs, "input closed; exiting") || strings.Contains(logs, "stopped by signal") {
		t.Errorf("the server did not exit by itself at end of input:\n%s", logs)
	}
}

// TestGoSDKCloseWithHungCall: a call hangs on the CLI; the program cancels
// it and closes the connection at once, as a host shutting down does. The
// Go SDK writes notifications/cancelled off the caller's path (go-sdk
// issue 1150), so it may be lost when Close shuts stdin first; then the
// call is still pending at end of input and the SDK's SIGTERM, after its
// grace period, ends the server. Either way the server exits with status 0
// and stops the CLI.
func TestGoSDKCloseWithHungCall(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGTERM: the Go SDK's Close ends a server that outlives its grace with TerminateProcess, so how the server ends is not its own")
	}
	f, pidfile := hungCLI(t)
	cs, stderr := goSDK(t, time.Second, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TIMEOUT=10m")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_file_info", Arguments: map[string]any{"path": "A.md"}})
	}()
	pid := obsidiantest.GrandchildPID(t, pidfile)
	cancel()
	<-done
	if err := cs.Close(); err != nil { // exit status 0, or an error
		t.Errorf("close: %v (stderr %s)", err, stderr)
	}
	grandchildEnds(t, pid)
	logs := stderr.String()
	if !strings.Contains(logs, "input closed; exiting") && !strings.Contains(logs, "stopped by signal") {
		t.Errorf("the server did not end cleanly:\n%s", logs)
	}
}

// ---- the official TypeScript SDK and the MCP Inspector (Node.js) ----

// clientsDir is where the pinned npm clients are installed.
var clientsDir = filepath.Join("..", "..", "scripts", "clients")

// node returns the pinned Node.js (the Inspector needs 22 or later) from
// scripts/clients, which TestMain installs when it is not (installClients).
func node(t *testing.T) string {
	t.Helper()
	outside(t)
	bin, err := filepath.Abs(filepath.Join(clientsDir, "node_modules", ".bin", "node"))
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		t.Fatalf("the pinned npm clients are not installed, and could not be (%s): install Node.js 20 or later with npm, or run npm ci --prefix scripts/clients", clientsProblem)
	}
	return bin
}

// tsClient runs scripts/clients/sdk-client.mjs in mode with plan and
// decodes what it prints into v.
func tsClient(t *testing.T, mode string, plan map[string]any, v any) {
	t.Helper()
	plan["command"] = binary
	in, _ := json.Marshal(plan)
	cmd := exec.CommandContext(t.Context(), node(t), "sdk-client.mjs", mode)
	cmd.Dir = clientsDir
	cmd.Stdin = bytes.NewReader(in)
	out, stderr, code := obsidiantest.RunCommand(t, cmd)
	if code != 0 {
		t.Fatalf("sdk-client.mjs %s: exit %d\n%s", mode, code, stderr)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("sdk-client.mjs %s printed %q: %v", mode, out, err)
	}
}

// tsCalls is what sdk-client.mjs reports in its "calls" mode: everyTool
// run by the TypeScript SDK's client.
type tsCalls struct {
	Server struct{ Name, Version string }
	Tools  []string
	Steps  []outcome
	Stderr string // the server's, when the client started it
}

// runTSCalls runs everyTool through the TypeScript SDK's client with plan
// (how it reaches the server) and checks what it saw: our server, every
// tool listed, and each outcome as client (the checks' name for it) gets it.
func runTSCalls(t *testing.T, f *obsidiantest.Fake, client string, plan map[string]any) tsCalls {
	t.Helper()
	plan["steps"] = everyTool
	var got tsCalls
	tsClient(t, "calls", plan, &got)
	if got.Server.Name != "obsidian-mcp" || got.Server.Version != "9.9.9-test" {
		t.Errorf("server info %+v", got.Server)
	}
	checkToolList(t, got.Tools)
	checkSteps(t, f, client, got.Steps)
	return got
}

func TestTypeScriptSDKClient(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	got := runTSCalls(t, f, "typescript-sdk", map[string]any{"env": map[string]string{"OBSIDIAN_BIN": f.Bin}})
	if t.Failed() {
		t.Logf("server stderr:\n%s", got.Stderr)
	}
}

// TestTypeScriptSDKCallAtOnce: issue 12's second reproduction, through the
// SDK itself: fresh servers, each called the moment the handshake is done.
func TestTypeScriptSDKCallAtOnce(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	var got struct {
		Starts, OK int
		Failures   []json.RawMessage
	}
	tsClient(t, "immediate", map[string]any{"args": []string{"--backend", "native", "--vault-path", f.Vault}, "starts": 25,
		"steps": []step{{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}}}}, &got)
	if got.OK != got.Starts || got.Starts != 25 {
		t.Errorf("%d of %d fresh servers answered a call made at once; first failures: %s", got.OK, got.Starts, got.Failures)
	}
}

func TestTypeScriptSDKCancel(t *testing.T) {
	outside(t)
	t.Parallel()
	f, pidfile := hungCLI(t)
	var got struct {
		Cancelled, Ping outcome
		Stderr          string
	}
	tsClient(t, "cancel", map[string]any{"env": map[string]string{"OBSIDIAN_BIN": f.Bin, "OBSIDIAN_MCP_TIMEOUT": "10m"}, "waitFile": pidfile,
		"steps": []step{{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}}}}, &got)
	if !strings.Contains(got.Cancelled.String(), "the user changed their mind") { // the SDK rejects with the abort reason
		t.Errorf("the aborted call: %s", got.Cancelled)
	}
	if got.Ping.Result == nil {
		t.Errorf("ping after the cancel: %s", got.Ping)
	}
	if !strings.Contains(got.Stderr, "outcome=CANCELLED") {
		t.Errorf("the server did not log the call as cancelled:\n%s", got.Stderr)
	}
	grandchildEnds(t, obsidiantest.GrandchildPID(t, pidfile))
}

// TestTypeScriptSDKCloseWithCallsInFlight: the TypeScript SDK's close ends
// stdin at once, failing its own pending calls; the server still has them
// pending at end of input, settles them and exits by itself before the
// SDK's SIGTERM, two seconds later.
func TestTypeScriptSDKCloseWithCallsInFlight(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	var steps []step
	// One batch of the server's 8 workers: they must settle inside the
	// SDK's two seconds, and under -race on a busy 2-core machine each
	// fake CLI run took up to a second (16 calls, two batches, did not).
	for range 8 {
		steps = append(steps, step{Tool: "obsidian_file_info", Arguments: map[string]any{"path": "A.md"}})
	}
	var got struct {
		Settled []outcome
		Stderr  string
	}
	tsClient(t, "close", map[string]any{"env": map[string]string{"OBSIDIAN_BIN": f.Bin, "OBSIDIAN_MCP_LOG_LEVEL": "debug"}, "steps": steps}, &got)
	for i, o := range got.Settled {
		if wantData("size", 5)("typescript-sdk", o) != nil && !strings.Contains(o.Thrown, "Connection closed") {
			t.Errorf("call %d: %s", i, o)
		}
	}
	if !strings.Contains(got.Stderr, "answering pending requests before exiting") {
		t.Errorf("no call was pending at end of input; the test proves nothing:\n%s", got.Stderr)
	}
	if !strings.Contains(got.Stderr, "input closed; exiting") || strings.Contains(got.Stderr, "stopped by signal") {
		t.Errorf("the server did not exit by itself at end of input:\n%s", got.Stderr)
	}
}

// TestTypeScriptSDKCloseWithHungCall: the TypeScript SDK closes with a call
// hung on the CLI and, two seconds later, sends SIGTERM; the server stops
// the CLI and exits cleanly.
func TestTypeScriptSDKCloseWithHungCall(t *testing.T) {
	outside(t)
	t.Parallel()
	f, pidfile := hungCLI(t)
	var got struct {
		Settled []outcome
		Stderr  string
	}
	tsClient(t, "close", map[string]any{"env": map[string]string{"OBSIDIAN_BIN": f.Bin, "OBSIDIAN_MCP_TIMEOUT": "10m"}, "waitFile": pidfile,
		"steps": []step{{Tool: "obsidian_file_info", Arguments: map[string]any{"path": "A.md"}}}}, &got)
	grandchildEnds(t, obsidiantest.GrandchildPID(t, pidfile))
	if !strings.Contains(got.Stderr, "stopped by signal") {
		t.Errorf("stderr:\n%s", got.Stderr)
	}
}

// inspector runs the MCP Inspector's CLI against the server and returns
// its stdout, stderr and exit status.
func inspector(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	var argv []string
	for _, e := range env {
		argv = append(argv, "-e", e)
	}
	return inspectorAt(t, append(append(argv, binary), args...)...)
}

// inspectorAt runs the MCP Inspector's CLI with args (its target among
// them: a command, or a URL).
func inspectorAt(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	argv := []string{filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"), "--cli"}
	cmd := exec.CommandContext(t.Context(), node(t), append(argv, args...)...)
	cmd.Dir = clientsDir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // its catalog and client config
	return obsidiantest.RunCommand(t, cmd)
}

// inspectorToolList checks what the Inspector's tools/list run gave: exit
// 0 and our tool list.
func inspectorToolList(t *testing.T, out, errOut string, code int) {
	t.Helper()
	var list struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("tools/list: exit %d, stdout %.300q, stderr %.2000s", code, out, errOut)
	}
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
	}
	checkToolList(t, names)
}

func TestInspectorCLI(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Welcome.md", "# Welcome\n")
	env := []string{"OBSIDIAN_BIN=" + f.Bin}

	// --strict: exit 6 if a tool schema has an error-severity portability
	// problem, and a report of every warning on stderr: there must be none,
	// in the input schemas nor (with --output-schemas) the output schemas
	// (8 warnings in 4 tools before docs/schemas.md's subset).
	out, errOut, code := inspector(t, env, "--method", "tools/list", "--format", "json", "--strict")
	inspectorToolList(t, out, errOut, code)
	if strings.Contains(errOut, "Warning:") || strings.Contains(errOut, "portability") {
		t.Errorf("the Inspector finds schema portability problems:\n%.3000s", errOut)
	}
	out, errOut, code = inspector(t, append(env, "OBSIDIAN_MCP_OUTPUT_SCHEMAS=true"), "--method", "tools/list", "--format", "json", "--strict")
	inspectorToolList(t, out, errOut, code)
	if !strings.Contains(out, `"outputSchema"`) || strings.Contains(errOut, "Warning:") || strings.Contains(errOut, "portability") {
		t.Errorf("with output schemas, the Inspector finds schema portability problems (or no output schema):\n%.3000s", errOut)
	}

	out, errOut, code = inspector(t, env, "--method", "tools/call", "--tool-name", "obsidian_read_note", "--tool-arg", "path=Welcome.md", "--format", "json")
	var o outcome
	if code != 0 || json.Unmarshal([]byte(out), &o) != nil {
		t.Fatalf("tools/call: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if o.Result == nil || o.Result.StructuredContent["content"] != "# Welcome\n" {
		t.Errorf("tools/call read: %s", out)
	}

	// A failed call exits 1 with the server's message in its error envelope;
	// an unknown tool exits 5 (the Inspector's tool-error status).
	_, errOut, code = inspector(t, env, "--method", "tools/call", "--tool-name", "obsidian_read_note", "--tool-arg", "path=Nope.md", "--format", "json")
	if code != 1 || !strings.Contains(errOut, `"message":"note not found: Nope.md"`) {
		t.Errorf("failed call: exit %d, stderr %s", code, errOut)
	}
	_, errOut, code = inspector(t, env, "--method", "tools/call", "--tool-name", "obsidian_nope", "--format", "json")
	if code != 5 || !strings.Contains(errOut, "tool_not_found") {
		t.Errorf("unknown tool: exit %d, stderr %s", code, errOut)
	}
}

// TestToolErrorsResultWithSDKs: with --tool-errors result, a failure is an
// isError result that both SDKs hand over as a result, its JSON text
// carrying the code, errorCode and hint, after the client has the tool
// list and checks results against output schemas. (Before, the result
// also carried the failure as structuredContent, which the TypeScript SDK
// rejected as not matching the output schema.)
func TestToolErrorsResultWithSDKs(t *testing.T) {
	t.Parallel()
	steps := []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}},
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Nope.md"}},
		{Tool: "obsidian_read_note", Arguments: map[string]any{"name": "Plan"}},
	}
	check := func(t *testing.T, got []outcome) {
		t.Helper()
		if err := wantContent("alpha")("", got[0]); err != nil {
			t.Error(err)
		}
		for i, want := range map[int]string{1: `"code":-32003`, 2: `"code":-32004`} {
			o := got[i]
			if o.Result == nil || !o.Result.IsError || len(o.Result.Content) != 1 ||
				!strings.Contains(o.Result.Content[0].Text, want) || !strings.Contains(o.Result.Content[0].Text, `"hint":`) {
				t.Errorf("call %d: want an isError result with %s and a hint, got %s", i, want, o)
			}
		}
	}
	vault := func(t *testing.T) *obsidiantest.Fake {
		f := obsidiantest.Install(t, obsidiantest.Scenario{})
		f.WriteNote("A.md", "alpha")
		f.WriteNote("a/Plan.md", "1")
		f.WriteNote("b/Plan.md", "2")
		return f
	}
	t.Run("go-sdk", func(t *testing.T) {
		f := vault(t)
		cs, _ := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TOOL_ERRORS=result")
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		var got []outcome
		for _, s := range steps {
			got = append(got, goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: s.Tool, Arguments: s.Arguments})))
		}
		check(t, got)
	})
	t.Run("typescript-sdk", func(t *testing.T) {
		outside(t)
		f := vault(t)
		var got struct{ Steps []outcome }
		// calls sends steps[0] before tools/list; the others are checked
		// against the output schemas.
		tsClient(t, "calls", map[string]any{"env": map[string]string{"OBSIDIAN_BIN": f.Bin, "OBSIDIAN_MCP_TOOL_ERRORS": "result"}, "steps": steps}, &got)
		check(t, got.Steps)
	})
}

// tsOrder are requests byte for byte as the official TypeScript SDK
// writes them: method, params, jsonrpc, id (issue 12).
const (
	tsInitialize  = `{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ts-order","version":"1.0.0"}},"jsonrpc":"2.0","id":0}`
	tsInitialized = `{"method":"notifications/initialized","jsonrpc":"2.0"}`
	tsCallFormat  = `{"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"A.md"}},"jsonrpc":"2.0","id":%d}`
)

// busy keeps every core spinning until the test ends, so that the server
// is starved and scheduled late, as on a loaded machine.
func busy(t *testing.T) {
	ctx := t.Context()
	for range runtime.NumCPU() {
		go func() {
			for ctx.Err() == nil {
			}
		}()
	}
}

// starts is how many fresh servers a reproduction loop starts: 100 in the
// stress tier, 10 in the default one.
func starts() int {
	if testenv.Stress() {
		return 100
	}
	return 10
}

// TestTSOrderAllAnsweredAtEOF: issue 12's first reproduction. Thirty calls
// in the TypeScript SDK's member order, then stdin closes: all 31 requests
// are answered, in 100 of 100 fresh starts, and again under a busy CPU.
func TestTSOrderAllAnsweredAtEOF(t *testing.T) {
	t.Parallel()
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "A.md"), []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	var input strings.Builder
	input.WriteString(tsInitialize + "\n" + tsInitialized + "\n")
	for id := 1; id <= 30; id++ {
		fmt.Fprintf(&input, tsCallFormat+"\n", id)
	}
	run := func(t *testing.T) {
		for start := range starts() {
			cmd := exec.Command(binary, "--backend", "native", "--vault-path", vault)
			cmd.Stdin = strings.NewReader(input.String())
			out, stderr, code := obsidiantest.RunCommand(t, cmd)
			answered := map[int]bool{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct {
					ID     *int            `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal([]byte(line), &r) == nil && r.ID != nil && r.Result != nil {
					answered[*r.ID] = true
				}
			}
			if code != 0 || len(answered) != 31 {
				t.Fatalf("start %d: %d of 31 requests answered, exit %d\nstderr: %s", start+1, len(answered), code, stderr)
			}
		}
	}
	t.Run("quiet", run)
	t.Run("busy", func(t *testing.T) { testenv.StressOnly(t); busy(t); run(t) })
}

// TestTSOrderCallRightAfterInitialize: issue 12's second reproduction. The
// client sends initialized and a tools/call the moment initialize is
// answered, with no tools/list between (a client with a cached tool
// list): the call is answered with the note, never "tool not found", in 100
// of 100 fresh starts, and again under a busy CPU.
func TestTSOrderCallRightAfterInitialize(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	run := func(t *testing.T) {
		for n := range starts() {
			cmd, stdin, stdout, stderr := start(t, "OBSIDIAN_BIN="+f.Bin)
			fmt.Fprintln(stdin, tsInitialize)
			if _, err := stdout.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(stdin, tsInitialized+"\n"+tsCallFormat+"\n", 1)
			line, err := stdout.ReadString('\n')
			if err != nil || !strings.Contains(line, `"structuredContent":{"path":"A.md","content":"alpha","etag":"`+note.ETag([]byte("alpha"))+`"}`) {
				t.Fatalf("start %d: the call made at once got %q, %v\nstderr: %s", n+1, line, err, stderr)
			}
			stdin.Close()
			awaitCleanExit(t, cmd, stderr, time.Minute, "end of input")
		}
	}
	t.Run("quiet", run)
	t.Run("busy", func(t *testing.T) { testenv.StressOnly(t); busy(t); run(t) })
}

// TestElicitedPermanentDelete: a client that can show a form is asked
// before a permanent delete, with the note's path and size; its "no"
// deletes nothing and its "yes" deletes. The Go SDK answers as a user
// would, through its elicitation handler.
func TestElicitedPermanentDelete(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	e := &elicitor{}
	cs, stderr := goSDKWith(t, time.Minute, &mcp.ClientOptions{ElicitationHandler: e.handle}, "OBSIDIAN_BIN="+f.Bin)
	e.check(t, f, cs, func() string { return stderr.String() })
}

// elicitor answers the server's elicitation requests as told, and keeps
// what it was asked.
type elicitor struct {
	mu     sync.Mutex
	asked  []string
	answer string
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params.Message)
	if e.answer == "accept" {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}
	return &mcp.ElicitResult{Action: "decline"}, nil
}

// check: a permanent delete the user declines is refused and leaves the
// note; one they accept removes it; they were asked both times, in words.
func (e *elicitor) check(t *testing.T, f *obsidiantest.Fake, cs *mcp.ClientSession, stderr func() string) {
	t.Helper()
	f.WriteNote("Old.md", "twelve bytes")
	del := func() outcome {
		return goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "obsidian_delete_note",
			Arguments: map[string]any{"path": "Old.md", "permanent": true}}))
	}
	if err := wantError(-32005, "PERMISSION_DENIED", "did not confirm")("go-sdk", del()); err != nil {
		t.Errorf("declined: %v (stderr %s)", err, stderr())
	}
	if _, ok := f.Note("Old.md"); !ok {
		t.Fatal("a declined delete removed the note")
	}
	e.mu.Lock()
	e.answer = "accept"
	e.mu.Unlock()
	if err := wantData("permanent", true)("go-sdk", del()); err != nil {
		t.Errorf("accepted: %v (stderr %s)", err, stderr())
	}
	if _, ok := f.Note("Old.md"); ok {
		t.Error("the note is still there after a confirmed delete")
	}
	want := "Delete Old.md (12 bytes) permanently? It will not go to the trash and cannot be restored."
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.asked) != 2 || e.asked[0] != want {
		t.Errorf("asked %q, want twice %q", e.asked, want)
	}
}

// TestReadOnlyGoSDK: with OBSIDIAN_MCP_READ_ONLY, the Go SDK's tools/list
// holds only the tools that change nothing, and a write it calls anyway is
// refused naming the setting, with the note untouched.
func TestReadOnlyGoSDK(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	cs, _ := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_READ_ONLY=true")
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is listed in read-only mode", tool.Name)
		}
	}
	if len(list.Tools) < 10 {
		t.Errorf("only %d tools listed", len(list.Tools))
	}
	o := goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "obsidian_append_to_note", Arguments: map[string]any{"path": "A.md", "content": "x"}}))
	if err := wantError(-32005, "PERMISSION_DENIED", "OBSIDIAN_MCP_READ_ONLY")("go-sdk", o); err != nil {
		t.Error(err)
	}
	if got, _ := f.Note("A.md"); got != "alpha" {
		t.Errorf("note = %q after a refused write", got)
	}
	if _, err := os.Stat(filepath.Join(f.Vault, ".obsidian-mcp")); err == nil {
		t.Error("a read-only server made its lock folder in the vault")
	}
}

// TestFolderPolicyGoSDK: with --deny-paths, --write-paths and a
// .mcpignore in the vault, what the official Go SDK sees of the vault
// through tools and resources leaves the hidden notes out; reading one is
// refused naming the rule, and so is a write outside the write paths, with
// nothing written. The folder is learned from the (fake) app, as with
// Claude Desktop and no vault folder set.
func TestFolderPolicyGoSDK(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Private/Secret.md", "zanzibar secret")
	f.WriteNote("Drafts/Draft.md", "zanzibar draft")
	f.WriteNote("Inbox/Open.md", "zanzibar open")
	f.WriteNote(".mcpignore", "# not for assistants\nDrafts/\n")
	cs, stderr := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_DENY_PATHS=Private/**", "OBSIDIAN_MCP_WRITE_PATHS=Inbox/**")
	call := func(name string, args map[string]any) outcome {
		return goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args}))
	}
	search := call("obsidian_search_notes", map[string]any{"query": "zanzibar"})
	if search.Result == nil || search.Result.IsError {
		t.Fatalf("search: %+v (stderr %s)", search, stderr)
	}
	if got := search.Result.Content[0].Text; !strings.Contains(got, "Inbox/Open.md") || strings.Contains(got, "Private") || strings.Contains(got, "Drafts") {
		t.Errorf("search shows hidden notes, or not the visible one: %s", got)
	}
	if err := wantError(-32005, "PERMISSION_DENIED", "OBSIDIAN_MCP_DENY_PATHS Private/**")("go-sdk",
		call("obsidian_read_note", map[string]any{"path": "Private/Secret.md"})); err != nil {
		t.Errorf("read a denied note: %v", err)
	}
	if err := wantError(-32005, "PERMISSION_DENIED", ".mcpignore line 2: Drafts/")("go-sdk",
		call("obsidian_read_note", map[string]any{"path": "Drafts/Draft.md"})); err != nil {
		t.Errorf("read an ignored note: %v", err)
	}
	if err := wantError(-32005, "PERMISSION_DENIED", "OBSIDIAN_MCP_WRITE_PATHS Inbox/**")("go-sdk",
		call("obsidian_create_note", map[string]any{"path": "Elsewhere.md", "content": "x"})); err != nil {
		t.Errorf("create outside the write paths: %v", err)
	}
	if _, ok := f.Note("Elsewhere.md"); ok {
		t.Error("a refused create wrote the note")
	}
	if o := call("obsidian_append_to_note", map[string]any{"path": "Inbox/Open.md", "content": "!"}); o.Result == nil || o.Result.IsError {
		t.Errorf("append inside the write paths: %+v", o)
	}
	res, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	if len(uris) == 0 || slices.ContainsFunc(uris, func(u string) bool { return strings.Contains(u, "Private") || strings.Contains(u, "Drafts") }) {
		t.Errorf("resources = %q: want the visible notes only", uris)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "obsidian-mcp://note/Private/Secret.md"}); err == nil || !strings.Contains(err.Error(), "Private/**") {
		t.Errorf("reading a denied note as a resource: %v", err)
	}
}
