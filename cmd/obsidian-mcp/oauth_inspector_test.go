package main

import (
	"bufio"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// freePort is a loopback port nothing listened on a moment ago, for a
// program the test starts that must be told its port before it binds it
// (fixedPorts says where it comes from).
func freePort(t *testing.T) int {
	t.Helper()
	given.Lock()
	defer given.Unlock()
	for range 1000 {
		p := fixedPorts[0] + rand.IntN(fixedPorts[1]-fixedPorts[0])
		if given.ports[p] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue // something listens there
		}
		_ = ln.Close()
		given.ports[p] = true
		return p
	}
	t.Fatalf("no free loopback port in %v", fixedPorts)
	return 0
}

// fixedPorts is where freePort takes ports from: below every system's
// ephemeral range (Linux 32768-60999, Windows and macOS 49152-65535). A
// port the kernel chose for 127.0.0.1:0 and that was closed again is one
// it hands to the next listener or outgoing connection of any process:
// under parallel tests the conformance suite, told such a port, found it
// taken (EADDRINUSE) by the time it listened.
var fixedPorts = [2]int{20000, 32000}

// given are the ports freePort handed out in this process, never twice.
var given = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// TestFreePortIsNotEphemeral: the ports freePort hands out lie outside the
// range the system gives to listeners on port 0 and to connections (on
// Linux, read from the kernel), and none is handed out twice.
func TestFreePortIsNotEphemeral(t *testing.T) {
	t.Parallel()
	lo, hi := 49152, 65535 // Windows' and macOS's
	if data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if _, err := fmt.Sscan(string(data), &lo, &hi); err != nil {
			t.Fatalf("ip_local_port_range %q: %v", data, err)
		}
	}
	seen := map[int]bool{}
	for range 50 {
		p := freePort(t)
		if p >= lo && p <= hi {
			t.Fatalf("port %d is in the ephemeral range %d-%d", p, lo, hi)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}
