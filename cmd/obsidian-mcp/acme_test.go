package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestServeACME: serve --tls-acme gets its certificate from a real ACME
// CA: Pebble (Let's Encrypt's test CA, pinned as a Go tool in go.mod),
// with its DNS test server answering every name with 127.0.0.1. At the
// first handshake for vault.test the server orders a certificate, Pebble
// checks the name by connecting to the server's own port (TLS-ALPN-01),
// and the client then reads the tools over HTTPS under a certificate for
// vault.test that Pebble's root signed. Restarted with Pebble gone, the
// server serves the certificate it kept.
func TestServeACME(t *testing.T) {
	t.Parallel()
	ca := startACME(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "acme")
	start := func() *served {
		return startListening(t, []string{"serve", "--listen", fmt.Sprintf("127.0.0.1:%d", ca.port), "--backend", "native", "--vault-path", dir,
			"--tls-acme", "vault.test", "--tls-acme-cache", cache, "--tls-acme-directory", ca.directory},
			[]string{"SSL_CERT_FILE=" + ca.apiCert}, servingURL)
	}
	s := start()
	ca.list(t, s, "/mcp")
	if _, err := os.Stat(filepath.Join(cache, "vault.test")); err != nil {
		t.Errorf("the certificate was not kept: %v", err)
	}
	s.stop(t)
	ca.stop()
	s = start()
	defer s.stop(t)
	ca.list(t, s, "/mcp")
}

// TestGatewayACME: the gateway's tls: {acme: [...]} gets its certificate
// from the same CA, and a namespace answers under it.
func TestGatewayACME(t *testing.T) {
	t.Parallel()
	ca := startACME(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(file, fmt.Appendf(nil, "listen: 127.0.0.1:%d\ndebug_listen: 127.0.0.1:0\ntls:\n  acme: [vault.test]\n  acme_cache: %q\n  acme_directory: %q\nnamespaces:\n  notes:\n    vault_path: %q\n",
		ca.port, filepath.Join(dir, "acme"), ca.directory, dir), 0o600); err != nil {
		t.Fatal(err)
	}
	g := startListening(t, []string{"gateway", "--config", file}, []string{"SSL_CERT_FILE=" + ca.apiCert}, regexp.MustCompile(`api=(https://vault\.test)/mcp/\{namespace\}`))
	defer g.stop(t)
	ca.list(t, g, "/mcp/notes")
}

// acmeCA is Pebble (Let's Encrypt's test CA, pinned as a Go tool in
// go.mod) with its DNS test server answering every name with 127.0.0.1:
// it validates a name by connecting to port (TLS-ALPN-01), where the
// server under test must listen.
type acmeCA struct {
	directory, apiCert string
	port               int
	trust              *x509.CertPool
	stop               func()
}

// pebbleBuilt builds Pebble's two programs once per run, beside the
// server's binary.
var pebbleBuilt = sync.OnceValue(func() error {
	for _, tool := range []string{"pebble", "pebble-challtestsrv"} {
		build := goCommand("build", "-o", filepath.Join(filepath.Dir(binary), tool), "github.com/letsencrypt/pebble/v2/cmd/"+tool)
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s: %v\n%s", tool, err, out)
		}
	}
	return nil
})

func startACME(t *testing.T) *acmeCA {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Go takes trusted roots from Windows' certificate store, not SSL_CERT_FILE: Pebble's root would have to be installed in the machine's store")
	}
	if err := pebbleBuilt(); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Dir(binary)
	dir := t.TempDir()
	apiCert, apiKey := filepath.Join(dir, "api.pem"), filepath.Join(dir, "api-key.pem")
	writeCert(t, apiCert, apiKey, 7)
	acmePort, mgmtPort, dnsPort, httpPort, port := freePort(t), freePort(t), freePort(t), freePort(t), freePort(t)
	config := filepath.Join(dir, "pebble.json")
	if err := os.WriteFile(config, fmt.Appendf(nil, `{"pebble":{"listenAddress":"127.0.0.1:%d","managementListenAddress":"127.0.0.1:%d","certificate":%q,"privateKey":%q,"httpPort":%d,"tlsPort":%d,"ocspResponderURL":"","externalAccountBindingRequired":false}}`,
		acmePort, mgmtPort, apiCert, apiKey, httpPort, port), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(name string, env []string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Env = append(os.Environ(), env...)
		out := &obsidiantest.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			if t.Failed() {
				t.Logf("%s:\n%s", name, out)
			}
		})
		return cmd
	}
	run("pebble-challtestsrv", nil, "-dnsserver", fmt.Sprintf("127.0.0.1:%d", dnsPort), "-defaultIPv4", "127.0.0.1", "-defaultIPv6", "",
		"-http01", "", "-https01", "", "-tlsalpn01", "", "-doh", "", "-management", fmt.Sprintf("127.0.0.1:%d", freePort(t)))
	// No random waits before validating, no random nonce refusals.
	pebble := run("pebble", []string{"PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0"}, "-config", config, "-dnsserver", fmt.Sprintf("127.0.0.1:%d", dnsPort))

	// The CA's API is HTTPS under apiCert: the servers trust it through
	// SSL_CERT_FILE, as a system's CA would be.
	trustAPI := x509.NewCertPool()
	pemData, _ := os.ReadFile(apiCert)
	trustAPI.AppendCertsFromPEM(pemData)
	api := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: trustAPI}}}
	var root []byte
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := api.Get(fmt.Sprintf("https://127.0.0.1:%d/roots/0", mgmtPort))
		if err == nil {
			root, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Pebble's root: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	trust := x509.NewCertPool()
	if !trust.AppendCertsFromPEM(root) {
		t.Fatalf("Pebble's root is not PEM: %q", root)
	}
	return &acmeCA{directory: fmt.Sprintf("https://127.0.0.1:%d/dir", acmePort), apiCert: apiCert, port: port, trust: trust,
		stop: func() { _ = pebble.Process.Kill(); _ = pebble.Wait() }}
}

// list reads the tools at path over HTTPS as vault.test, trusting the
// CA's root alone, and checks the certificate is for vault.test.
func (ca *acmeCA) list(t *testing.T, s *served, path string) {
	t.Helper()
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: ca.trust},
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, fmt.Sprintf("127.0.0.1:%d", ca.port))
		},
	}}
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("https://vault.test:%d%s", ca.port, path), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("over HTTPS as vault.test: %v\nserver:\n%s", err, s.stderr)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	leaf := resp.TLS.PeerCertificates[0]
	if resp.StatusCode != 200 || !strings.Contains(string(body), "obsidian_read_note") || len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != "vault.test" {
		t.Fatalf("%d %.300s; certificate for %v", resp.StatusCode, body, leaf.DNSNames)
	}
}
