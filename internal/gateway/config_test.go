package gateway

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	full := `listen: 127.0.0.1:9080
debug_listen: 127.0.0.1:9081
allowed_hosts: [localhost, notes.lan]
allowed_origins: ["http://localhost:5173"]
limits:
  max_request: 2MB
  max_response: 16MiB
  max_connections: 8
  max_sessions: 40
  request_timeout: 90s
ping_interval: 15s
namespaces:
  work:
    vault_path: /vaults/work
    backend: native
    read_only: true
    deny_paths: ["Private/**"]
  personal-2:
    vault: Personal
  fs:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
    env: {NODE_OPTIONS: "--no-warnings"}
    cwd: /tmp
`
	c, err := Parse("gateway.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9080" || c.DebugListen != "127.0.0.1:9081" || c.PingInterval != 15*time.Second ||
		c.Limits != (Limits{MaxRequest: 2_000_000, MaxResponse: 16 << 20, MaxConnections: 8, MaxSessions: 40, MaxBatch: 100, RequestTimeout: 90 * time.Second}) ||
		strings.Join(c.AllowedHosts, ",") != "localhost,notes.lan" || len(c.AllowedOrigins) != 1 {
		t.Errorf("config %+v", c)
	}
	var names []string
	for _, n := range c.Namespaces {
		names = append(names, n.Name)
	}
	if strings.Join(names, ",") != "work,personal-2,fs" {
		t.Errorf("namespaces in order: %v", names)
	}
	if w := c.Namespaces[0]; !w.IsVault() || !w.ReadOnly || w.Backend != "native" || w.DenyPaths[0] != "Private/**" || w.Line != 13 {
		t.Errorf("work = %+v", w)
	}
	if fs := c.Namespaces[2]; fs.IsVault() || fs.Command != "npx" || len(fs.Args) != 3 || fs.Env["NODE_OPTIONS"] != "--no-warnings" || fs.Cwd != "/tmp" {
		t.Errorf("fs = %+v", fs)
	}

	c, err = Parse("g.yaml", []byte("namespaces:\n  notes:\n    vault_path: /v\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || c.DebugListen != DefaultDebugListen || c.PingInterval != DefaultPingInterval ||
		c.Limits != (Limits{DefaultMaxRequest, DefaultMaxResponse, DefaultMaxConnections, DefaultMaxSessions, DefaultMaxBatch, DefaultRequestTimeout}) || strings.Join(c.AllowedHosts, ",") != "localhost,127.0.0.1" {
		t.Errorf("defaults %+v", c)
	}
}

// TestParseErrors: every mistake names its line and the fix, and all of
// them are reported at once.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, yaml, want string }{
		{"empty", "", "g.yaml is empty: it needs at least `namespaces:`"},
		{"no namespaces", "listen: 127.0.0.1:1\n", "no `namespaces:`; add at least one"},
		{"unknown setting", "listn: x\nnamespaces:\n  a: {vault: A}\n", `line 1: unknown setting "listn"`},
		{"unknown namespace setting", "namespaces:\n  a:\n    vault: A\n    comand: x\n", `line 4: namespace "a": unknown setting "comand"`},
		{"bad name", "namespaces:\n  my_vault:\n    vault: A\n", `g.yaml line 2: namespace name "my_vault" may hold only letters, digits and hyphens`},
		{"both", "namespaces:\n  a:\n    vault_path: /v\n    command: x\n", `line 2: namespace "a" has both a command and a vault`},
		{"neither", "namespaces:\n  a:\n    backend: native\n", `line 2: namespace "a" serves nothing: give it`},
		{"vault with args", "namespaces:\n  a:\n    vault: A\n    args: [x]\n", "`args`, `env` and `cwd` belong to a command namespace"},
		{"command with policy", "namespaces:\n  a:\n    command: x\n    read_only: true\n", "belong to a vault namespace"},
		{"backend", "namespaces:\n  a:\n    vault: A\n    backend: app\n", `backend "app" must be auto, cli or native`},
		{"duplicate", "namespaces:\n  a: {vault: A}\n  a: {vault: B}\n", `line 3: namespace "a" is defined twice (first on line 2)`},
		{"size", "limits:\n  max_request: lots\nnamespaces:\n  a: {vault: A}\n", `line 2: max_request "lots": must be a size such as 1048576, 1MB or 10MiB`},
		{"connections", "limits:\n  max_connections: 0\nnamespaces:\n  a: {vault: A}\n", "line 2: max_connections \"0\" must be a whole number of at least 1"},
		{"batch", "limits:\n  max_batch: none\nnamespaces:\n  a: {vault: A}\n", "line 2: max_batch \"none\" must be a whole number of at least 1"},
		{"sessions", "limits:\n  max_sessions: none\nnamespaces:\n  a: {vault: A}\n", "line 2: max_sessions \"none\" must be a whole number of at least 1"},
		{"request timeout", "limits:\n  request_timeout: 10ms\nnamespaces:\n  a: {vault: A}\n", "line 2: request_timeout \"10ms\" must be a duration of at least 1s"},
		{"oauth issuer", "oauth:\n  issuer: id.example.com\nnamespaces:\n  a: {vault: A}\n", "line 2: oauth.issuer \"id.example.com\" must be an http(s) URL"},
		{"oauth client id alone", "oauth:\n  issuer: https://id.example.com\n  client_id: gw\nnamespaces:\n  a: {vault: A}\n", "line 2: oauth.client_id and oauth.client_secret_file go together"},
		{"oauth public url alone", "oauth:\n  public_url: https://vault.example.com\nnamespaces:\n  a: {vault: A}\n", "line 2: oauth has neither issuer nor built_in"},
		{"oauth both ways", "oauth:\n  issuer: https://id.example.com\n  built_in: true\nnamespaces:\n  a: {vault: A}\n", "line 2: oauth.built_in and oauth.issuer are two ways"},
		{"oauth built_in not a bool", "oauth:\n  built_in: yes please\nnamespaces:\n  a: {vault: A}\n", "line 2: oauth.built_in \"yes please\" must be true or false"},
		{"oauth store alone", "oauth:\n  issuer: https://id.example.com\n  store: /tmp/o.json\nnamespaces:\n  a: {vault: A}\n", "line 2: oauth.store is where the built-in server keeps its grants"},
		{"oauth built_in with a client id", "oauth:\n  built_in: true\n  client_id: gw\n  client_secret_file: /dev/null\nnamespaces:\n  a: {vault: A}\n", "oauth.client_id is for asking an issuer"},
		{"tls without a key", "tls:\n  cert: /dev/null\nnamespaces:\n  a: {vault: A}\n", "line 2: tls needs both cert and key"},
		{"tls file missing", "tls:\n  cert: /no/such.pem\n  key: /dev/null\nnamespaces:\n  a: {vault: A}\n", "line 2: tls.cert \"/no/such.pem\" cannot be read"},
		{"tls unknown", "tls:\n  chain: x\n  cert: /dev/null\n  key: /dev/null\nnamespaces:\n  a: {vault: A}\n", "line 2: tls: unknown setting \"chain\""},
		{"tls both ways", "tls:\n  cert: /dev/null\n  key: /dev/null\n  acme: [vault.example.com]\nnamespaces:\n  a: {vault: A}\n", "line 2: tls has cert and acme"},
		{"tls acme not a domain", "tls:\n  acme: [localhost]\nnamespaces:\n  a: {vault: A}\n", "line 2: tls.acme: \"localhost\" is not a domain name"},
		{"tls acme over http", "tls:\n  acme: [vault.example.com]\n  acme_directory: http://ca.example/dir\nnamespaces:\n  a: {vault: A}\n", "line 3: tls.acme_directory \"http://ca.example/dir\" must be an https URL"},
		{"tls acme settings alone", "tls:\n  cert: /dev/null\n  key: /dev/null\n  acme_email: me@example.com\nnamespaces:\n  a: {vault: A}\n", "line 2: tls.acme_cache, acme_directory and acme_email go with acme"},
		{"a proxy that is no address", "behind_proxy: [proxy.lan]\nnamespaces:\n  a: {vault: A}\n", "line 1: behind_proxy: \"proxy.lan\" is neither an address nor a network"},
		{"limit key", "limits:\n  max_body: 1\nnamespaces:\n  a: {vault: A}\n", `line 2: limits has no "max_body"`},
		{"ping", "ping_interval: soon\nnamespaces:\n  a: {vault: A}\n", `line 1: ping_interval "soon" must be a duration`},
		{"listen", "listen: 8080\nnamespaces:\n  a: {vault: A}\n", `line 1: listen "8080" must be host:port`},
		{"same listeners", "listen: 127.0.0.1:9\ndebug_listen: 127.0.0.1:9\nnamespaces:\n  a: {vault: A}\n", "line 2: listen and debug_listen are both 127.0.0.1:9"},
		{"not yaml", "namespaces: [\n", "g.yaml: "},
		{"namespaces a list", "namespaces:\n  - a\n", "line 2: namespaces must be a mapping"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("g.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v\nwant %q", err, tc.want)
			}
		})
	}
	_, err := Parse("g.yaml", []byte("namespaces:\n  a_b: {vault: A}\n  c:\n    backend: x\n"))
	if err == nil || strings.Count(err.Error(), "g.yaml line") != 3 {
		t.Errorf("all problems at once: %v", err)
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"1048576": 1 << 20, "1MB": 1_000_000, "10MiB": 10 << 20, "512 KiB": 512 << 10, "2m": 2 << 20, "1.5MB": 1_500_000} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MB", "-1", "1TB", "x1"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

func TestParseCommand(t *testing.T) {
	c, err := ParseCommand(nil, func(k string) string { return map[string]string{"OBSIDIAN_MCP_GATEWAY_CONFIG": "/etc/g.yaml"}[k] })
	if err != nil || c.File != "/etc/g.yaml" {
		t.Errorf("%+v %v", c, err)
	}
	if c, err = ParseCommand([]string{"--config", "x.yaml", "--log-level", "debug"}, func(string) string { return "" }); err != nil || c.File != "x.yaml" || c.LogLevel != -4 {
		t.Errorf("%+v %v", c, err)
	}
	if _, err := ParseCommand([]string{"--log-level", "loud"}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "--log-level") {
		t.Errorf("bad level: %v", err)
	}
}
