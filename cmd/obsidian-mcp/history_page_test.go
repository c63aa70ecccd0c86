package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHistoryPage: serve's /history page, in Chromium. Without the key it
// shows nothing of the vault and says why; with it, a change an assistant
// made is listed, its diff shown on a click, and its Undo button puts the
// note back. On a read-only server the page still lists the change, and
// its undo is refused, the note untouched.
func TestHistoryPage(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	const key = "history-page-key-0123456789"
	vault := t.TempDir()
	plan := filepath.Join(vault, "Plan.md")
	if err := os.WriteFile(plan, []byte("# Plan\nfirst\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"OBSIDIAN_MCP_API_KEY=" + key, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH=" + vault, "OBSIDIAN_MCP_CHANGES_DIR=" + t.TempDir()}
	s := serve(t, nil, env...)
	base := strings.TrimSuffix(s.url, "/mcp")
	resp, body := httpRequest(t, "POST", base+"/v1/mcp", `{"method":"call_tool","name":"obsidian_append_to_note","args":{"path":"Plan.md","content":"added by an assistant"}}`,
		map[string]string{"Authorization": "Bearer " + key})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"ok":true`) {
		t.Fatalf("the change: %d %s", resp.StatusCode, body)
	}

	ctx := browse(t, browser)
	var status string
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/history"),
		chromedp.Poll(`document.getElementById("status").className === "error"`, nil),
		chromedp.Evaluate(`document.getElementById("status").innerText`, &status)); err != nil {
		t.Fatalf("the page without the key: %v\n%s", err, s.stderr)
	}
	if !strings.Contains(strings.ToLower(status), "key") || strings.Contains(status, "obsidian_append_to_note") {
		t.Errorf("without the key the page says %q", status)
	}

	var rows, diff, after string
	err := chromedp.Run(ctx, showChanges("", key, &rows), undoFirst(&diff),
		chromedp.Poll(`document.getElementById("status").innerText.startsWith("Undone")`, nil),
		chromedp.Evaluate(`document.querySelector("#changes tbody").innerText`, &after),
	)
	if err != nil {
		t.Fatalf("the page with the key: %v\nrows %q\n%s", err, rows, s.stderr)
	}
	if !strings.Contains(rows, "obsidian_append_to_note") || !strings.Contains(rows, "Plan.md") {
		t.Errorf("the change's row: %q", rows)
	}
	if !strings.Contains(diff, "+added by an assistant") {
		t.Errorf("the diff: %q", diff)
	}
	if data, _ := os.ReadFile(plan); string(data) != "# Plan\nfirst\n" {
		t.Errorf("after Undo the note is %q", data)
	}
	if !strings.Contains(after, "obsidian_undo") {
		t.Errorf("the undo is not listed as a change of its own: %q", after)
	}

	// A server that may only read lists the changes and refuses the undo.
	ro := serve(t, []string{"--read-only"}, env...)
	roBase := strings.TrimSuffix(ro.url, "/mcp")
	var refused string
	var ignored, roDiff string
	err = chromedp.Run(ctx, showChanges(roBase+"/history", key, &ignored), undoFirst(&roDiff),
		chromedp.Poll(`document.getElementById("status").className === "error"`, nil),
		chromedp.Evaluate(`document.getElementById("status").innerText`, &refused),
	)
	if err != nil {
		t.Fatalf("the read-only page: %v\n%s", err, ro.stderr)
	}
	if data, _ := os.ReadFile(plan); string(data) != "# Plan\nfirst\n" || refused == "" {
		t.Errorf("read-only: the undo said %q, the note is %q", refused, data)
	}
	t.Logf("read-only refusal on the page: %q", refused)
}

// TestHistoryPageOnTheGateway: the same page for a vault namespace of the
// gateway, at /history/<namespace>, behind the gateway's key: the change
// listed with its diff, undone by its button.
func TestHistoryPageOnTheGateway(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	const key = "history-gateway-key-0123456789"
	vault := t.TempDir()
	plan := filepath.Join(vault, "Plan.md")
	if err := os.WriteFile(plan, []byte("# Plan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gateway(t, "namespaces:\n  notes:\n    vault_path: "+vault+"\n", "OBSIDIAN_MCP_API_KEY="+key, "OBSIDIAN_MCP_CHANGES_DIR="+t.TempDir())
	resp, body := httpRequest(t, "POST", g.url+"/mcp/notes", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_append_to_note","arguments":{"path":"Plan.md","content":"through the gateway"}}}`,
		map[string]string{"Authorization": "Bearer " + key})
	if resp.StatusCode != 200 || strings.Contains(string(body), `"error"`) {
		t.Fatalf("the change: %d %s", resp.StatusCode, body)
	}
	if resp, _ := httpRequest(t, "GET", g.url+"/history/nowhere", "", nil); resp.StatusCode != 404 {
		t.Errorf("the page of a namespace that does not exist: %d", resp.StatusCode)
	}
	ctx := browse(t, browser)
	var diff, rows string
	err := chromedp.Run(ctx, showChanges(g.url+"/history/notes", key, &rows), undoFirst(&diff),
		chromedp.Poll(`document.getElementById("status").innerText.startsWith("Undone")`, nil),
	)
	if err != nil {
		t.Fatalf("the page: %v\n%s", err, g.stderr)
	}
	// The gateway's key checked the call: the record names it.
	if !strings.Contains(rows, "the API key") {
		t.Errorf("the change's client: %q", rows)
	}
	if !strings.Contains(diff, "+through the gateway") {
		t.Errorf("the diff: %q", diff)
	}
	if data, _ := os.ReadFile(plan); string(data) != "# Plan\n" {
		t.Errorf("after Undo the note is %q", data)
	}
}

// showChanges opens the page at url (none: the page open already), gives
// it the key, and waits for the changes: their rows' text in rows.
func showChanges(url, key string, rows *string) chromedp.Tasks {
	var tasks chromedp.Tasks
	if url != "" {
		tasks = append(tasks, chromedp.Navigate(url))
	}
	return append(tasks,
		chromedp.SetValue("#key", key, chromedp.ByID),
		chromedp.Click(`#auth button[type="submit"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("tr.change") !== null`, nil),
		chromedp.Evaluate(`document.querySelector("#changes tbody").innerText`, rows))
}

// undoFirst opens the first change's diff (its text in diff) and presses
// its Undo button, the confirmation, which is the person's, answered yes.
func undoFirst(diff *string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Click("tr.change", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("tr.detail pre") !== null`, nil),
		chromedp.Evaluate(`document.querySelector("tr.detail pre").innerText`, diff),
		chromedp.Evaluate(`window.confirm = () => true; document.querySelector("tr.change button.undo").click(); true`, nil),
	}
}
