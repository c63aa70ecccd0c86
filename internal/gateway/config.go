// Package gateway is `obsidian-mcp gateway`: many vaults and stdio MCP
// servers behind one HTTP endpoint, each a namespace, as the README's
// gateway section describes. This file is its
// configuration: a YAML file whose every error names its line and the fix.
package gateway

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// Config is a gateway.yaml.
type Config struct {
	// Listen is the API listener; DebugListen the dashboard's.
	Listen      string `yaml:"listen"`
	DebugListen string `yaml:"debug_listen"`
	// AllowedHosts are the Host names accepted (DNS-rebinding protection).
	AllowedHosts []string `yaml:"allowed_hosts"`
	// AllowedOrigins are the browser origins given CORS; "*" any.
	AllowedOrigins []string `yaml:"allowed_origins"`
	Limits         Limits   `yaml:"limits"`
	// PingInterval is how often SSE streams get `event: ping`.
	PingInterval time.Duration `yaml:"ping_interval"`
	// OAuth, when its issuer is set or it is built in, makes every
	// namespace an OAuth resource server.
	OAuth OAuth `yaml:"oauth"`
	// TLSCert and TLSKey, when set, make the API listener HTTPS (reloaded
	// when renewed, as serve's --tls-cert); ACME, with domains, does it
	// with certificates from an ACME CA (serve's --tls-acme).
	TLSCert, TLSKey string       `yaml:"-"`
	ACME            httpapi.ACME `yaml:"-"`
	// BehindProxy are the reverse proxies whose X-Forwarded-Proto is
	// believed (serve's --behind-proxy).
	BehindProxy []netip.Prefix `yaml:"-"`
	// Namespaces in the file's order.
	Namespaces []Namespace `yaml:"-"`
}

// OAuth is the gateway's `oauth:` block.
type OAuth struct {
	// Issuer is the authorization server whose access tokens are accepted.
	Issuer string `yaml:"issuer"`
	// BuiltIn makes the gateway its own authorization server (serve
	// --oauth), its grants kept in Store (default: serve's).
	BuiltIn bool   `yaml:"built_in"`
	Store   string `yaml:"store"`
	// PublicURL is the gateway's address as clients reach it
	// (scheme://host[:port]); a namespace's resource is
	// <PublicURL>/mcp/<name>. Default: the API listener's address.
	PublicURL string `yaml:"public_url"`
	// ClientID and ClientSecret (read from client_secret_file) are the
	// gateway's credentials at the issuer, to introspect opaque tokens.
	ClientID     string `yaml:"client_id"`
	ClientSecret string `yaml:"-"`
}

// Limits bound what one client may take.
type Limits struct {
	// MaxRequest and MaxResponse are bytes: a bigger request is 413, a
	// bigger answer 500.
	MaxRequest  int64 `yaml:"max_request"`
	MaxResponse int64 `yaml:"max_response"`
	// MaxConnections is how many SSE streams may be open at once (503).
	MaxConnections int `yaml:"max_connections"`
	// MaxSessions bounds each namespace's sessions; past it the one
	// unused longest makes room.
	MaxSessions int `yaml:"max_sessions"`
	// MaxBatch bounds the messages of one JSON-RPC batch (400 past it);
	// a batch's answers count against MaxResponse in all.
	MaxBatch int `yaml:"max_batch"`
	// RequestTimeout bounds each request to a command namespace's server:
	// past it the server is told to cancel, and the client gets an error.
	RequestTimeout time.Duration `yaml:"request_timeout"`
}

// Namespace is a vault served in-process, or a stdio MCP server run as a
// managed subprocess.
type Namespace struct {
	Name string
	Line int // where it is defined, for messages
	// A vault namespace.
	VaultPath  string   `yaml:"vault_path"`
	Vault      string   `yaml:"vault"`
	Backend    string   `yaml:"backend"`
	ReadOnly   bool     `yaml:"read_only"`
	ReadPaths  []string `yaml:"read_paths"`
	WritePaths []string `yaml:"write_paths"`
	DenyPaths  []string `yaml:"deny_paths"`
	// A command namespace.
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"`
	Cwd     string            `yaml:"cwd"`
}

// IsVault reports whether the namespace is a vault.
func (n Namespace) IsVault() bool { return n.Command == "" }

// Defaults of the contract.
const (
	DefaultListen         = "127.0.0.1:8080"
	DefaultDebugListen    = "127.0.0.1:8081"
	DefaultMaxRequest     = 1 << 20
	DefaultMaxResponse    = 10 << 20
	DefaultMaxConnections = 5
	DefaultMaxSessions    = 256
	DefaultMaxBatch       = 100
	DefaultRequestTimeout = 5 * time.Minute
	DefaultPingInterval   = 30 * time.Second
)

var namespaceName = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// namespaceKeys are the settings of a namespace.
var namespaceKeys = map[string]bool{
	"vault_path": true, "vault": true, "backend": true, "read_only": true, "read_paths": true, "write_paths": true, "deny_paths": true,
	"command": true, "args": true, "env": true, "cwd": true,
}

// raw is the file as written; sizes and durations are read by hand so
// that "1MB" and "30s" work and errors keep their line.
type raw struct {
	Listen         string    `yaml:"listen"`
	DebugListen    string    `yaml:"debug_listen"`
	AllowedHosts   []string  `yaml:"allowed_hosts"`
	AllowedOrigins []string  `yaml:"allowed_origins"`
	Limits         yaml.Node `yaml:"limits"`
	PingInterval   yaml.Node `yaml:"ping_interval"`
	OAuth          yaml.Node `yaml:"oauth"`
	TLS            yaml.Node `yaml:"tls"`
	BehindProxy    []string  `yaml:"behind_proxy"`
	Namespaces     yaml.Node `yaml:"namespaces"`
}

// On reports whether the namespaces take OAuth tokens.
func (o OAuth) On() bool { return o.Issuer != "" || o.BuiltIn }

// Parse reads a gateway.yaml. Every problem is reported, each with its
// line (as "file line N: ...") and what to do.
func Parse(file string, data []byte) (*Config, error) {
	var r raw
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s is empty: it needs at least `namespaces:` with one vault or command", file)
		}
		return nil, fmt.Errorf("%s: %s", file, yamlMessage(err))
	}
	c := &Config{
		Listen: cmp.Or(r.Listen, DefaultListen), DebugListen: cmp.Or(r.DebugListen, DefaultDebugListen),
		AllowedHosts: r.AllowedHosts, AllowedOrigins: r.AllowedOrigins,
		Limits: Limits{MaxRequest: DefaultMaxRequest, MaxResponse: DefaultMaxResponse, MaxConnections: DefaultMaxConnections, MaxBatch: DefaultMaxBatch,
			MaxSessions: DefaultMaxSessions, RequestTimeout: DefaultRequestTimeout},
		PingInterval: DefaultPingInterval,
	}
	if len(c.AllowedHosts) == 0 {
		c.AllowedHosts = []string{"localhost", "127.0.0.1"}
	}
	var errs []error
	at := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s line %d: %s", file, line, fmt.Sprintf(format, args...)))
	}
	for _, l := range []struct{ key, v string }{{"listen", c.Listen}, {"debug_listen", c.DebugListen}} {
		if _, port, err := net.SplitHostPort(l.v); err != nil || port == "" {
			at(lineOf(data, l.key), "%s %q must be host:port, e.g. 127.0.0.1:8080", l.key, l.v)
		}
	}
	if c.Listen == c.DebugListen && !strings.HasSuffix(c.Listen, ":0") {
		at(lineOf(data, "debug_listen"), "listen and debug_listen are both %s: give the dashboard its own port", c.Listen)
	}
	if r.PingInterval.Kind != 0 {
		d, err := time.ParseDuration(r.PingInterval.Value)
		if err != nil || d < time.Second {
			at(r.PingInterval.Line, "ping_interval %q must be a duration of at least 1s, e.g. 30s", r.PingInterval.Value)
		} else {
			c.PingInterval = d
		}
	}
	if r.Limits.Kind != 0 {
		c.Limits = parseLimits(&r.Limits, c.Limits, at)
	}
	if r.OAuth.Kind != 0 {
		c.OAuth = parseOAuth(&r.OAuth, at)
	}
	if u, err := url.Parse(c.OAuth.PublicURL); c.OAuth.PublicURL != "" && err == nil && u.Hostname() != "" && !slices.Contains(c.AllowedHosts, strings.ToLower(u.Hostname())) {
		// Clients reach the gateway there: its Host is this one's.
		c.AllowedHosts = append(c.AllowedHosts, strings.ToLower(u.Hostname()))
	}
	if r.OAuth.Kind != 0 && !c.OAuth.On() {
		at(r.OAuth.Line, "oauth has neither issuer nor built_in: name the authorization server whose tokens are accepted (issuer: URL), or be one (built_in: true)")
	}
	if r.TLS.Kind != 0 {
		c.TLSCert, c.TLSKey, c.ACME = parseTLS(&r.TLS, at)
	}
	for _, d := range c.ACME.Domains {
		if !slices.Contains(c.AllowedHosts, d) {
			c.AllowedHosts = append(c.AllowedHosts, d) // the certificate's names are the gateway's
		}
	}
	for _, p := range r.BehindProxy {
		got, err := httpapi.ParseProxies(p)
		if err != nil {
			at(lineOf(data, "behind_proxy"), "behind_proxy: %v", err)
		}
		c.BehindProxy = append(c.BehindProxy, got...)
	}
	switch {
	case r.Namespaces.Kind == 0:
		errs = append(errs, fmt.Errorf("%s: no `namespaces:`; add at least one, e.g.\n  namespaces:\n    notes:\n      vault_path: ~/Vault", file))
	case r.Namespaces.Kind != yaml.MappingNode:
		at(r.Namespaces.Line, "namespaces must be a mapping of names to namespaces, e.g. `notes: {vault_path: ~/Vault}`")
	default:
		c.Namespaces = parseNamespaces(&r.Namespaces, at)
	}
	return c, errors.Join(errs...)
}

// parseNamespaces reads namespaces:, a mapping of names to namespaces,
// reporting each problem at its line.
func parseNamespaces(nodes *yaml.Node, at func(int, string, ...any)) []Namespace {
	var out []Namespace
	seen := map[string]int{}
	for i := 0; i+1 < len(nodes.Content); i += 2 {
		key, val := nodes.Content[i], nodes.Content[i+1]
		n := Namespace{Name: key.Value, Line: key.Line}
		if !namespaceName.MatchString(n.Name) {
			at(key.Line, "namespace name %q may hold only letters, digits and hyphens (it is the URL's /mcp/{namespace})", n.Name)
		}
		if first, dup := seen[n.Name]; dup {
			at(key.Line, "namespace %q is defined twice (first on line %d); rename or remove one", n.Name, first)
		}
		seen[n.Name] = key.Line
		// Node.Decode has no KnownFields: a misspelt setting would be
		// dropped silently, so the keys are checked here.
		if val.Kind == yaml.MappingNode {
			for j := 0; j < len(val.Content); j += 2 {
				if k := val.Content[j]; !namespaceKeys[k.Value] {
					at(k.Line, "namespace %q: unknown setting %q (a vault has vault_path, vault, backend, read_only, read_paths, write_paths, deny_paths; a command has command, args, env, cwd)", n.Name, k.Value)
				}
			}
		}
		if err := val.Decode(&n); err != nil {
			at(val.Line, "namespace %q: %s", n.Name, yamlMessage(err))
			continue
		}
		n.Name, n.Line = key.Value, key.Line
		switch {
		case n.Command != "" && (n.VaultPath != "" || n.Vault != ""):
			at(key.Line, "namespace %q has both a command and a vault; a namespace is one or the other: remove `command` or `vault_path`/`vault`", n.Name)
		case n.Command == "" && n.VaultPath == "" && n.Vault == "":
			at(key.Line, "namespace %q serves nothing: give it `vault_path` (a vault folder), `vault` (a vault name Obsidian knows) or `command` (a stdio MCP server)", n.Name)
		case n.Command == "" && (len(n.Args) > 0 || len(n.Env) > 0 || n.Cwd != ""):
			at(key.Line, "namespace %q is a vault: `args`, `env` and `cwd` belong to a command namespace", n.Name)
		case n.Command != "" && (n.Backend != "" || n.ReadOnly || len(n.ReadPaths)+len(n.WritePaths)+len(n.DenyPaths) > 0):
			at(key.Line, "namespace %q is a command: `backend`, `read_only` and the paths settings belong to a vault namespace (pass the server its own flags in `args`)", n.Name)
		}
		switch n.Backend {
		case "", "auto", "cli", "native":
		default:
			at(key.Line, "namespace %q: backend %q must be auto, cli or native", n.Name, n.Backend)
		}
		out = append(out, n)
	}
	if len(nodes.Content) == 0 {
		at(nodes.Line, "namespaces is empty; add at least one vault or command")
	}
	return out
}

// parseOAuth reads oauth: issuer and public_url, each an http(s) URL.
func parseOAuth(n *yaml.Node, at func(int, string, ...any)) OAuth {
	var o OAuth
	if n.Kind != yaml.MappingNode {
		at(n.Line, "oauth must be a mapping: issuer, public_url")
		return o
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		v := strings.TrimSuffix(strings.TrimSpace(val.Value), "/")
		switch key.Value {
		case "issuer":
			o.Issuer = strings.TrimSpace(val.Value) // exactly as the server names itself
		case "public_url":
			o.PublicURL = v
		case "client_id":
			o.ClientID = strings.TrimSpace(val.Value)
			continue
		case "built_in":
			b, err := strconv.ParseBool(strings.TrimSpace(val.Value))
			if err != nil {
				at(val.Line, "oauth.built_in %q must be true or false", val.Value)
			}
			o.BuiltIn = b
			continue
		case "store":
			o.Store = strings.TrimSpace(val.Value)
			continue
		case "client_secret_file":
			secret, err := httpapi.SecretFile(strings.TrimSpace(val.Value))
			if err != nil {
				at(val.Line, "oauth.client_secret_file %q %v", val.Value, err)
			}
			o.ClientSecret = secret
			continue
		default:
			at(key.Line, "oauth: unknown setting %q (it has issuer, client_id and client_secret_file, or built_in and store; and public_url)", key.Value)
			continue
		}
		if p, err := url.Parse(v); err != nil || p.Host == "" || p.Scheme != "https" && p.Scheme != "http" {
			at(val.Line, "oauth.%s %q must be an http(s) URL, e.g. https://id.example.com", key.Value, val.Value)
		}
	}
	if (o.ClientID != "") != (o.ClientSecret != "") {
		at(n.Line, "oauth.client_id and oauth.client_secret_file go together: give both, or neither")
	}
	switch {
	case o.BuiltIn && o.Issuer != "":
		at(n.Line, "oauth.built_in and oauth.issuer are two ways to sign clients in: choose one (the built-in server, or your identity provider)")
	case o.BuiltIn && o.ClientID != "":
		at(n.Line, "oauth.client_id is for asking an issuer about its tokens; the built-in server (built_in) checks its own: remove client_id and client_secret_file")
	case o.Store != "" && !o.BuiltIn:
		at(n.Line, "oauth.store is where the built-in server keeps its grants: set built_in: true, or remove store")
	}
	return o
}

// parseTLS reads tls: cert and key, both PEM files that must exist; or
// acme (the domains), with acme_cache, acme_directory and acme_email.
func parseTLS(n *yaml.Node, at func(int, string, ...any)) (cert, key string, a httpapi.ACME) {
	if n.Kind != yaml.MappingNode {
		at(n.Line, "tls must be a mapping: cert and key (PEM files), or acme (domain names)")
		return "", "", a
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		v := strings.TrimSpace(val.Value)
		switch k.Value {
		case "cert", "key":
			if _, err := os.Stat(v); err != nil {
				at(val.Line, "tls.%s %q cannot be read: %v", k.Value, val.Value, err)
			}
			if k.Value == "cert" {
				cert = v
			} else {
				key = v
			}
		case "acme":
			var domains []string
			if err := val.Decode(&domains); err != nil {
				at(val.Line, "tls.acme must be a list of domain names, e.g. [vault.example.com]")
			}
			var err error
			if a.Domains, err = httpapi.ParseDomains(domains); err != nil {
				for _, line := range strings.Split(err.Error(), "\n") {
					at(val.Line, "tls.acme: %s", line)
				}
			}
		case "acme_cache":
			a.Cache = v
		case "acme_directory":
			if u, err := url.Parse(v); err != nil || u.Scheme != "https" || u.Host == "" {
				at(val.Line, "tls.acme_directory %q must be an https URL", val.Value)
			}
			a.Directory = v
		case "acme_email":
			a.Email = v
		default:
			at(k.Line, "tls: unknown setting %q (it has cert and key, or acme, acme_cache, acme_directory and acme_email)", k.Value)
		}
	}
	switch {
	case (cert != "" || key != "") && len(a.Domains) > 0:
		at(n.Line, "tls has cert and acme: two ways to get a certificate; choose one")
	case len(a.Domains) > 0:
	case cert == "" || key == "":
		at(n.Line, "tls needs both cert and key (PEM files), e.g. the ones `tailscale cert` writes, or acme with the domain names")
	case a.Cache != "" || a.Directory != "" || a.Email != "":
		at(n.Line, "tls.acme_cache, acme_directory and acme_email go with acme: list the domain names there")
	}
	return cert, key, a
}

// HTTPS reports whether the API listener serves HTTPS itself.
func (c *Config) HTTPS() bool { return c.TLSCert != "" || len(c.ACME.Domains) > 0 }

// parseLimits reads limits: sizes as bytes or with a unit (KB, MB, KiB,
// MiB…), connections as a positive number.
func parseLimits(n *yaml.Node, l Limits, at func(int, string, ...any)) Limits {
	if n.Kind != yaml.MappingNode {
		at(n.Line, "limits must be a mapping: max_request, max_response, max_connections, max_sessions, max_batch, request_timeout")
		return l
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		switch key.Value {
		case "max_request", "max_response":
			size, err := parseSize(val.Value)
			if err != nil {
				at(val.Line, "%s %q: %v", key.Value, val.Value, err)
				continue
			}
			if key.Value == "max_request" {
				l.MaxRequest = size
			} else {
				l.MaxResponse = size
			}
		case "max_connections", "max_sessions", "max_batch":
			v, err := strconv.Atoi(val.Value)
			if err != nil || v < 1 {
				at(val.Line, "%s %q must be a whole number of at least 1", key.Value, val.Value)
				continue
			}
			switch key.Value {
			case "max_connections":
				l.MaxConnections = v
			case "max_sessions":
				l.MaxSessions = v
			default:
				l.MaxBatch = v
			}
		case "request_timeout":
			d, err := time.ParseDuration(val.Value)
			if err != nil || d < time.Second {
				at(val.Line, "request_timeout %q must be a duration of at least 1s, e.g. 5m", val.Value)
				continue
			}
			l.RequestTimeout = d
		default:
			at(key.Line, "limits has no %q; it knows max_request, max_response, max_connections, max_sessions, max_batch and request_timeout", key.Value)
		}
	}
	return l
}

// SizeWord is a size in parseSize's units, decimal first where both fit,
// so that a limit reads as the file wrote it ("512 KB", "1 MiB").
func SizeWord(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1e9, "GB"}, {1 << 30, "GiB"}, {1e6, "MB"}, {1 << 20, "MiB"}, {1e3, "KB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// parseSize reads "1048576", "1MB", "512 KiB".
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	num := strings.TrimRightFunc(s, func(r rune) bool { return r == ' ' || unicode.IsLetter(r) })
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	mult := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "K": 1 << 10, "M": 1 << 20}[unit]
	if err != nil || mult == 0 || v <= 0 {
		return 0, fmt.Errorf("must be a size such as 1048576, 1MB or 10MiB")
	}
	return int64(v * mult), nil
}

// yamlMessage is the library's error without its "yaml: " prefix, with
// the line it names kept ("line 4: field x not found in type …" becomes
// a word the user can act on).
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	if strings.Contains(msg, "not found in type") {
		field := msg
		if i := strings.Index(msg, "field "); i >= 0 {
			field = msg[i+len("field "):]
			field = field[:strings.Index(field, " not found")]
		}
		line := msg[:max(0, strings.Index(msg, ": field"))]
		msg = fmt.Sprintf("%s: unknown setting %q (see the README's gateway section for the settings)", line, field)
	}
	return msg
}

// lineOf is the line where key is set at the top level (1 when absent).
func lineOf(data []byte, key string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, key+":") {
			return i + 1
		}
	}
	return 1
}
