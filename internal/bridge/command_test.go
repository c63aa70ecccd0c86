package bridge

import (
	"flag"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name        string
		args        []string
		env         func(string) string
		target      string
		transport   string
		key         string
		warn, fails string
	}{
		{name: "defaults", env: env(), target: "http://127.0.0.1:3000/mcp", transport: "auto"},
		{name: "environment", env: env("OBSIDIAN_MCP_HOST", "localhost", "OBSIDIAN_MCP_PORT", "3100", "OBSIDIAN_MCP_TRANSPORT", "V1", "OBSIDIAN_MCP_API_KEY", "k"),
			target: "http://localhost:3100/mcp", transport: "v1", key: "k"},
		{name: "a flag wins", args: []string{"--port", "4000", "--transport", "mcp"}, env: env("OBSIDIAN_MCP_PORT", "3100", "OBSIDIAN_MCP_TRANSPORT", "v1"),
			target: "http://127.0.0.1:4000/mcp", transport: "mcp"},
		{name: "invalid port warns and falls back", env: env("OBSIDIAN_MCP_PORT", "abc"), target: "http://127.0.0.1:3000/mcp", transport: "auto", warn: `OBSIDIAN_MCP_PORT: "abc" is not a port`},
		{name: "port out of range", args: []string{"--port", "70000"}, env: env(), target: "http://127.0.0.1:3000/mcp", transport: "auto", warn: "--port: \"70000\" is not a port"},
		{name: "invalid transport warns and falls back", env: env("OBSIDIAN_MCP_TRANSPORT", "grpc"), target: "http://127.0.0.1:3000/mcp", transport: "auto", warn: `"grpc" is not auto, mcp or v1; using auto`},
		{name: "IPv6 host", env: env("OBSIDIAN_MCP_HOST", "::1"), target: "http://[::1]:3000/mcp", transport: "auto"},
		{name: "url wins", args: []string{"--url", "https://notes.example/x/mcp"}, env: env("OBSIDIAN_MCP_PORT", "3100"), target: "https://notes.example/x/mcp", transport: "auto"},
		{name: "bad url", args: []string{"--url", "ftp://x"}, env: env(), fails: `invalid --url "ftp://x": must be an http:// or https:// URL`},
		{name: "bad host", env: env("OBSIDIAN_MCP_HOST", "a/b"), fails: `invalid OBSIDIAN_MCP_HOST "a/b"`},
		{name: "stray argument", args: []string{"serve"}, env: env(), fails: `unexpected argument "serve"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseConfig(tc.args, tc.env)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Fatalf("err = %v, want %q", err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.target(); got != tc.target || c.Transport != tc.transport || c.APIKey != tc.key {
				t.Errorf("target %q transport %q key %q", got, c.Transport, c.APIKey)
			}
			warnings := strings.Join(c.Warnings, "\n")
			if tc.warn == "" && warnings != "" || !strings.Contains(warnings, tc.warn) {
				t.Errorf("warnings = %q, want %q", warnings, tc.warn)
			}
			if c.CallTimeout != 70*time.Second {
				t.Errorf("call timeout %v", c.CallTimeout)
			}
		})
	}
	if _, err := ParseConfig([]string{"--help"}, env()); err != flag.ErrHelp {
		t.Errorf("--help: %v", err)
	}
	for _, key := range []string{"OBSIDIAN_MCP_API_KEY", "OBSIDIAN_MCP_URL_FILE", "--call-timeout"} {
		if !strings.Contains(Usage(), key) {
			t.Errorf("--help does not mention %s", key)
		}
	}
}

func TestEndpoints(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"http://127.0.0.1:3000/mcp":        {"http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000"},
		"http://127.0.0.1:3000/mcp/":       {"http://127.0.0.1:3000/mcp/", "http://127.0.0.1:3000"},
		"https://h.example/vault/mcp?x=1":  {"https://h.example/vault/mcp?x=1", "https://h.example/vault"},
		"http://127.0.0.1:3000/other-path": {"http://127.0.0.1:3000/other-path", "http://127.0.0.1:3000/other-path"},
	} {
		m, v := endpoints(in)
		if m != want[0] || v != want[1] {
			t.Errorf("endpoints(%q) = %q, %q; want %q", in, m, v, want)
		}
	}
}
