package main

import (
	"bufio"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInspectorOAuth: MCP Inspector's CLI (2.12.0) signs in to serve
// --oauth with its own OAuth flow, as a person runs it: it prints where
// to go, Chromium approves the consent page, the browser lands on the
// Inspector's loopback callback, and the Inspector then reads a note
// (the token it got lists the tools and calls one). Once by dynamic
// client registration, once naming itself by a client ID metadata
// document (--client-metadata-url), which the server fetches over HTTPS
// from a site on this machine (trusted through SSL_CERT_FILE, as a
// system's own CA would be).
func TestInspectorOAuth(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	callback := freePort(t)
	redirect := fmt.Sprintf("http://127.0.0.1:%d/oauth/callback", callback)
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/inspector.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": "https://" + r.Host + r.URL.Path, "client_name": "Inspector by its document",
			"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	}))
	defer site.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: site.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	document := site.URL + "/inspector.json"

	store, oauthCmd := oauthStore(t)
	vault, _ := helloVault(t, "# Hello\nread by the Inspector\n")
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth", "--oauth-store", store}, "SSL_CERT_FILE="+ca)
	defer s.stop(t)
	for _, c := range []struct {
		name   string
		args   []string
		client string
	}{
		{"registration", nil, "MCP Inspector"},
		{"metadata document", []string{"--client-metadata-url", document}, "Inspector by its document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"), "--cli",
				"--server-url", s.url, "--method", "tools/call", "--tool-name", "obsidian_read_note", "--tool-arg", "path=Hello.md", "--format", "json",
				"--callback-url", redirect}, c.args...)
			cmd := exec.CommandContext(t.Context(), node(t), args...)
			cmd.Dir = clientsDir
			// No terminal here: the Inspector is told it may ask a person
			// anyway. The browser it would open is `true` (xdg-open runs
			// $BROWSER): the test's Chromium is the person's.
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "MCP_AUTO_OPEN_ENABLED=true", "MCP_INSPECTOR_SECRET_STORE=memory", "BROWSER=true")
			var stdout strings.Builder
			cmd.Stdout = &stdout
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			said := make(chan string, 64)
			var all strings.Builder
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					said <- sc.Text()
				}
				close(said)
			}()
			var authorize string
			for deadline := time.After(60 * time.Second); authorize == ""; {
				select {
				case line, ok := <-said:
					if !ok {
						t.Fatalf("the Inspector ended before asking for a sign-in: %v\n%s\nstdout: %s", cmd.Wait(), all.String(), stdout.String())
					}
					all.WriteString(line + "\n")
					if u, found := strings.CutPrefix(line, "Please navigate to: "); found {
						authorize = strings.TrimSpace(u)
					}
				case <-deadline:
					t.Fatalf("the Inspector asked for no sign-in within 60 s:\n%s", all.String())
				}
			}
			if !strings.HasPrefix(authorize, strings.TrimSuffix(s.url, "/mcp")+"/authorize?") {
				t.Fatalf("the Inspector sends the person to %q", authorize)
			}
			page, _ := approveInBrowser(t, browser, authorize, testPassphrase, s)
			if !strings.Contains(page, c.client) {
				t.Errorf("the consent page does not name %q:\n%s", c.client, page)
			}
			go func() {
				for line := range said {
					all.WriteString(line + "\n")
				}
			}()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("the Inspector after signing in: %v\nstdout: %s\nstderr: %s\nserve: %s", err, stdout.String(), all.String(), s.stderr)
			}
			var o outcome
			if err := json.Unmarshal([]byte(stdout.String()), &o); err != nil || o.Result == nil || o.Result.IsError || !strings.Contains(stdout.String(), "read by the Inspector") {
				t.Fatalf("the Inspector's call: %v %s", err, stdout.String())
			}
		})
	}
	listed := oauthCmd("", "grants")
	if !strings.Contains(listed, "MCP Inspector") || !strings.Contains(listed, document) {
		t.Errorf("grants:\n%s\nserve:\n%s", listed, s.stderr)
	}
}

// freePort is a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
