package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestGatewayDashboard loads the gateway's /debug page in a real headless
// browser (Debian's Chromium, which .ci/run installs), makes a call through
// the gateway, and checks that the page shows it, live: the message both
// ways and the namespace's counts. The screenshot is kept as the test's
// artifact (go test -artifacts).
func TestGatewayDashboard(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Hello.md"), []byte("# Hello\nshown on the dashboard\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gateway(t, "namespaces:\n  notes:\n    vault_path: "+vault+"\n")
	debug := g.match[2]

	ctx := browse(t, browser)
	// Poll: the page's own state, as it changes (a class, a row).
	live := `document.getElementById("live").className === "on" && document.querySelector('tr[data-namespace="notes"]') !== null`
	if err := chromedp.Run(ctx, chromedp.Navigate(debug+"/debug"), chromedp.Poll(live, nil)); err != nil {
		t.Fatalf("the page did not come up live: %v\n%s", err, g.stderr)
	}

	// The call, made after the page is up: it can only get there live.
	resp, body := httpRequest(t, http.MethodPost, g.url+"/mcp/notes", `{"jsonrpc":"2.0","id":"from-test","method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Hello.md"}}}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "shown on the dashboard") {
		t.Fatalf("the call: %d %s", resp.StatusCode, body)
	}
	var log, counts string
	err := chromedp.Run(ctx,
		chromedp.Poll(`document.querySelector("#log tr.message.out") !== null && document.querySelector('tr[data-namespace="notes"] .out-count').textContent === "1"`, nil),
		// And as the gateway's own state says, once the page asks again.
		chromedp.Evaluate(`refresh().then(() => true)`, nil, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
		// Read in the page, in one go: the page redraws its rows as
		// messages arrive, and a node looked up first and read after
		// can be gone by then (chromedp.Text's "No node with given id").
		chromedp.Evaluate(`document.querySelector("#log tbody").innerText`, &log),
		chromedp.Evaluate(`document.querySelector('tr[data-namespace="notes"]').innerText`, &counts),
	)
	var shot []byte
	if serr := chromedp.Run(ctx, chromedp.FullScreenshot(&shot, 100)); serr == nil {
		file := filepath.Join(t.ArtifactDir(), "dashboard.png")
		if werr := os.WriteFile(file, shot, 0o644); werr == nil {
			t.Logf("screenshot: %s (%d bytes)", file, len(shot))
		}
	}
	if err != nil {
		t.Fatalf("the call never showed: %v", err)
	}
	for _, want := range []string{"tools/call", `"from-test"`, "obsidian_read_note", "result", "→ in", "← out"} {
		if !strings.Contains(log, want) {
			t.Errorf("the message log lacks %q:\n%s", want, log)
		}
	}
	// notes, vault, running, then sessions, in and out: the shared
	// session's one message each way.
	if f := strings.Fields(counts); len(f) < 5 || f[0] != "notes" || f[1] != "vault" || f[2] != "running" || f[len(f)-2] != "1" || f[len(f)-1] != "1" {
		t.Errorf("the namespace row: %q", counts)
	}
}

// findBrowser is the Chromium to drive (scripts/ci-packages installs it).
func findBrowser(t *testing.T) string {
	t.Helper()
	// A browser is an outside program: without the switch its tests skip
	// whether or not one is installed.
	outside(t)
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return need(t, "chromium")
}

// browse is a headless browser's tab, closed with the test, each of its
// steps bounded by 60 s in all.
func browse(t *testing.T, browser string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestGatewayDashboardKey: with an API key, the dashboard page asks for
// it; a wrong key is refused on the page, the right one opens it live,
// and a call made with the key shows there.
func TestGatewayDashboardKey(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	const key = "dashboard-key-0123456789"
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Hello.md"), []byte("# Hello\nbehind a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gateway(t, "namespaces:\n  notes:\n    vault_path: "+vault+"\n", "OBSIDIAN_MCP_API_KEY="+key)
	ctx := browse(t, browser)
	var said string
	err := chromedp.Run(ctx, chromedp.Navigate(g.match[2]+"/debug"),
		chromedp.WaitVisible("#key", chromedp.ByID),
		chromedp.SendKeys("#key", "not-the-key-0123456789", chromedp.ByID),
		chromedp.Click("#login button", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("login-error").textContent !== ""`, nil),
		chromedp.Text("#login-error", &said, chromedp.ByID),
	)
	if err != nil || said != "that is not the key" {
		t.Fatalf("a wrong key: %q, %v\n%s", said, err, g.stderr)
	}
	err = chromedp.Run(ctx,
		chromedp.SetValue("#key", key, chromedp.ByID),
		chromedp.Click("#login button", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("live").className === "on" && document.querySelector('tr[data-namespace="notes"]') !== null && document.getElementById("login").hidden`, nil),
	)
	if err != nil {
		t.Fatalf("the right key did not open the page: %v\n%s", err, g.stderr)
	}
	if resp, _ := httpRequest(t, http.MethodPost, g.url+"/mcp/notes", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a call without the key: %d", resp.StatusCode)
	}
	resp, body := httpRequest(t, http.MethodPost, g.url+"/mcp/notes", `{"jsonrpc":"2.0","id":"keyed","method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Hello.md"}}}`,
		map[string]string{"Authorization": "Bearer " + key})
	if resp.StatusCode != 200 || !strings.Contains(string(body), "behind a key") {
		t.Fatalf("the call with the key: %d %s", resp.StatusCode, body)
	}
	var log string
	if err := chromedp.Run(ctx, chromedp.Poll(`document.querySelector("#log tr.message.out") !== null`, nil), chromedp.Text("#log tbody", &log)); err != nil || !strings.Contains(log, `"keyed"`) {
		t.Errorf("the call never showed: %v\n%s", err, log)
	}
}

// TestGatewayDashboardHistory: a page opened after traffic shows the
// messages the gateway remembers, and a long message stays within its
// column (the page never scrolls sideways).
func TestGatewayDashboardHistory(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	vault := t.TempDir()
	long := strings.Repeat("a long line of the note that goes on and on ", 200)
	if err := os.WriteFile(filepath.Join(vault, "Long.md"), []byte("# Long\n"+long+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gateway(t, "namespaces:\n  notes:\n    vault_path: "+vault+"\n")
	resp, body := httpRequest(t, http.MethodPost, g.url+"/mcp/notes", `{"jsonrpc":"2.0","id":"before-the-page","method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Long.md"}}}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "goes on and on") {
		t.Fatalf("the call: %d %.200s", resp.StatusCode, body)
	}
	ctx := browse(t, browser)
	var log string
	var wide bool
	err := chromedp.Run(ctx, chromedp.Navigate(g.match[2]+"/debug"),
		chromedp.Poll(`document.querySelectorAll("#log tr.message").length >= 2`, nil),
		chromedp.Text("#log tbody", &log),
		chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &wide),
	)
	if err != nil {
		t.Fatalf("the page shows no history: %v\n%s", err, g.stderr)
	}
	if !strings.Contains(log, `"before-the-page"`) || !strings.Contains(log, "earlier") || !strings.Contains(log, "tools/call") {
		t.Errorf("the history shown:\n%s", log)
	}
	if wide {
		t.Error("the page scrolls sideways: a message column overflows")
	}
}
