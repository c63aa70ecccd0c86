package serve

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// TestServeConfig: serve's settings; a listener beyond loopback needs an
// API key; the key is never shown; the stdio server has no such flags.
func TestServeConfig(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	c, err := ParseConfig(nil, none)
	if err != nil || c.HTTP.Listen != "127.0.0.1:3000" || c.HTTP.Key.Set() {
		t.Fatalf("defaults = %+v, %v", c.HTTP, err)
	}
	if _, err := ParseConfig([]string{"--listen", "0.0.0.0:3000"}, none); err == nil || !strings.Contains(err.Error(), "no API key") {
		t.Errorf("a non-loopback listener without a key: %v", err)
	}
	const key = "0123456789abcdef-key"
	env := func(k string) string {
		return map[string]string{"OBSIDIAN_MCP_API_KEY": key, "OBSIDIAN_MCP_CORS_ORIGINS": "https://Chat.example/, *"}[k]
	}
	c, err = ParseConfig([]string{"--listen", "[::]:8443", "--allowed-hosts", "Notes.lan, vault.local"}, env)
	if err != nil || !keyIs(c.HTTP.Key, key) || c.HTTP.Listen != "[::]:8443" ||
		strings.Join(c.HTTP.AllowedHosts, ",") != "notes.lan,vault.local" || strings.Join(c.HTTP.CORSOrigins, ",") != "https://chat.example,*" {
		t.Fatalf("serve settings = %+v, %v", c.HTTP, err)
	}
	for _, s := range c.Settings {
		if strings.Contains(s.Value, key) {
			t.Errorf("setting %s shows the key: %q", s.Env, s.Value)
		}
	}
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte("from-the-file-0123456789\nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := ParseConfig([]string{"--api-key-file", file}, env); err != nil || !keyIs(c.HTTP.Key, "from-the-file-0123456789") {
		t.Errorf("--api-key-file wins over the environment: %v", err)
	}
	// OAuth: beyond loopback it needs no key, but HTTPS (its own, or a
	// proxy's); TLS files go in pairs.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:3000", "--oauth-issuer", "https://id.example.com"}, "over plain HTTP"},
		{[]string{"--listen", "0.0.0.0:3000", "--oauth-issuer", "https://id.example.com", "--behind-proxy", "192.168.1.10, 10.0.0.0/8"}, ""},
		{[]string{"--listen", "0.0.0.0:3000", "--oauth-issuer", "https://id.example.com", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, ""},
		{[]string{"--tls-cert", "c.pem"}, "go together"},
		{[]string{"--oauth", "--oauth-issuer", "https://id.example.com"}, "choose one"},
		{[]string{"--listen", "0.0.0.0:3000", "--oauth"}, "over plain HTTP"},
		{[]string{"--listen", "0.0.0.0:3000", "--oauth", "--behind-proxy", "10.0.0.1"}, ""},
		{[]string{"--oauth-issuer", "https://id.example.com", "--oauth-client-id", "rs"}, "go together"},
		{[]string{"--oauth-client-id", "rs", "--oauth-client-secret-file", "/nonexistent"}, "cannot be read"},
		{[]string{"--behind-proxy", "proxy.lan"}, "neither an address nor a network"},
		{[]string{"--oauth-issuer", "id.example.com"}, "not an http(s) URL"},
		{[]string{"--public-url", "https://vault.example.com/mcp"}, "not a scheme://host[:port] URL"},
		{[]string{"--listen", "0.0.0.0:3000", "--oauth", "--tls-acme", "vault.example.com, Other.example.com"}, ""},
		{[]string{"--tls-acme", "vault.example.com", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "two ways to get a certificate"},
		{[]string{"--tls-acme", "localhost"}, "not a domain name"},
		{[]string{"--tls-acme", "https://vault.example.com"}, "not a domain name"},
		{[]string{"--tls-acme-email", "me@example.com"}, "go with --tls-acme"},
		{[]string{"--tls-acme", "vault.example.com", "--tls-acme-directory", "http://ca.example/dir"}, "not an https URL"},
	} {
		_, err := ParseConfig(c.args, none)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	for _, bad := range []map[string]string{
		{"OBSIDIAN_MCP_API_KEY": "short"},
		{"OBSIDIAN_MCP_LISTEN": "3000"},
		{"OBSIDIAN_MCP_CORS_ORIGINS": "chat.example"},
	} {
		_, err := ParseConfig(nil, func(k string) string { return bad[k] })
		if err == nil {
			t.Errorf("%v accepted", bad)
		} else if strings.Contains(err.Error(), "short\"") {
			t.Errorf("the error shows the key: %v", err)
		}
	}
	if _, err := vaultserver.ParseConfig([]string{"--listen", "127.0.0.1:3000"}, none); err == nil {
		t.Error("the stdio server accepted serve's --listen")
	}
}

// TestServeUsageDocumentsEverything: serve's --help has the server's
// settings and its own.
func TestServeUsageDocumentsEverything(t *testing.T) {
	t.Parallel()
	u := Usage()
	for _, sp := range append(vaultserver.Specs(), Specs()...) {
		if !strings.Contains(u, sp.Env) || sp.Flag != "" && !strings.Contains(u, "--"+sp.Flag) {
			t.Errorf("serve's usage lacks --%s / %s", sp.Flag, sp.Env)
		}
	}
}

func keyIs(k httpapi.Key, want string) bool {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("X-Api-Key", want)
	ok, _ := k.Allows(r)
	return k.Set() && ok
}
