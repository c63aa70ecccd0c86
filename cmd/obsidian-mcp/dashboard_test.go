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
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Chromium: .ci/run installs it (apt-get install chromium)")
		}
		t.Skip("no Chromium installed")
	}
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Hello.md"), []byte("# Hello\nshown on the dashboard\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gateway(t, "namespaces:\n  notes:\n    vault_path: "+vault+"\n")
	debug := g.match[2]

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
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
		chromedp.Text(`#log tbody`, &log),
		chromedp.Text(`tr[data-namespace="notes"]`, &counts),
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
