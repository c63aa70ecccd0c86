package bridge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge/upstream"
	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
)

// Config is the configuration of `obsidian-mcp bridge`, from its flags and
// environment (ParseConfig).
type Config struct {
	Host string
	Port int
	// URL is the MCP endpoint given with --url; it wins over Host and Port.
	URL string
	// URLFile holds the server's URL, written by `obsidian-mcp serve
	// --url-file`; read at start and whenever the server cannot be reached.
	URLFile   string
	APIKey    string
	Transport string // auto, mcp or v1
	// CallTimeout bounds one tool call.
	CallTimeout time.Duration
	LogLevel    slog.Level
	ShowVersion bool
	// Warnings are settings that were invalid and fell back to their
	// default, as the bridge contract asks (port, transport).
	Warnings []string
	Settings []settings.Setting
}

// Transports of the bridge.
const (
	TransportAuto = "auto"
	TransportMCP  = "mcp"
	TransportV1   = "v1"
)

// rows are the bridge's settings.
func rows() []settings.Row[Config] {
	return []settings.Row[Config]{
		{Flag: "host", Env: "OBSIDIAN_MCP_HOST", Default: "127.0.0.1", Help: "The server's host.",
			Set: func(c *Config, v string) error {
				v = strings.TrimSpace(v)
				if v == "" || strings.ContainsAny(v, "/ ?#@") {
					return fmt.Errorf("must be a host name or address, e.g. 127.0.0.1")
				}
				c.Host = strings.Trim(v, "[]")
				return nil
			}},
		{Flag: "port", Env: "OBSIDIAN_MCP_PORT", Default: "3000", Help: "The server's port. An invalid value is reported and 3000 is used, as the bridge contract asks.",
			Set: func(c *Config, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 1 || n > 65535 {
					c.Port = 3000
					return settings.Warning(fmt.Sprintf("%q is not a port (1-65535); using 3000", v))
				}
				c.Port = n
				return nil
			}},
		{Flag: "url", Env: "OBSIDIAN_MCP_URL", Default: "", Help: "The server's MCP endpoint as a whole URL, e.g. `http://127.0.0.1:3000/mcp` or any MCP Streamable HTTP server; wins over host and port. The Bridge Protocol v1 is looked for beside it (the URL without its final `/mcp`).",
			Set: func(c *Config, v string) error {
				if v = strings.TrimSpace(v); v == "" {
					return nil
				}
				if _, err := endpointURL(v); err != nil {
					return err
				}
				c.URL = v
				return nil
			}},
		{Flag: "url-file", Env: "OBSIDIAN_MCP_URL_FILE", Default: "", Help: "A file holding the server's URL, as `obsidian-mcp serve --url-file` writes it. It is read at start and again whenever the server cannot be reached, so a server restarted on another port is found again.",
			Set: func(c *Config, v string) error { c.URLFile = strings.TrimSpace(v); return nil }},
		{Flag: "transport", Env: "OBSIDIAN_MCP_TRANSPORT", Default: TransportAuto, Help: "`auto` (MCP over HTTP first, the Bridge Protocol v1 if the server has no MCP), `mcp` or `v1`. An invalid value is reported and `auto` is used.",
			Set: func(c *Config, v string) error {
				switch t := strings.ToLower(strings.TrimSpace(v)); t {
				case TransportAuto, TransportMCP, TransportV1:
					c.Transport = t
					return nil
				}
				c.Transport = TransportAuto
				return settings.Warning(fmt.Sprintf("%q is not auto, mcp or v1; using auto", v))
			}},
		{Flag: "api-key-file", Env: "OBSIDIAN_MCP_API_KEY_FILE", Default: "", Help: "A file holding the server's API key (its first line).",
			Set: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				data, err := os.ReadFile(v)
				if err != nil {
					return fmt.Errorf("cannot be read: %v", err)
				}
				key, _, _ := strings.Cut(string(data), "\n")
				if c.APIKey = strings.TrimSpace(key); c.APIKey == "" {
					return fmt.Errorf("holds no key")
				}
				return nil
			}},
		{Flag: "", Env: "OBSIDIAN_MCP_API_KEY", Default: "", Secret: true, Help: "The server's API key (environment only). It is sent as `X-ObsiScripta-Api-Key` to MCP over HTTP, never to the Bridge Protocol v1, which has none. `--api-key-file` wins.",
			Set: func(c *Config, v string) error {
				if c.APIKey == "" {
					c.APIKey = strings.TrimSpace(v)
				}
				return nil
			}},
		{Flag: "call-timeout", Env: "OBSIDIAN_MCP_CALL_TIMEOUT", Default: DefaultCallTimeout.String(), Help: "How long one tool call may take before it fails with an `Error:` result: the server's own bound (serve's is twice its CLI timeout plus 5 s) plus a margin. Health checks and tool listings have 5 s.",
			Set: func(c *Config, v string) error {
				d, err := settings.Duration(v)
				c.CallTimeout = d
				return err
			}},
		{Flag: "log-level", Env: "OBSIDIAN_MCP_LOG_LEVEL", Default: "info", Help: "Log level: `debug`, `info`, `warn` or `error` (stderr only).",
			Set: func(c *Config, v string) error {
				l, err := settings.LogLevel(v)
				c.LogLevel = l
				return err
			}},
	}
}

// ParseConfig reads the bridge's flags and environment; a flag wins.
func ParseConfig(args []string, getenv func(string) string) (Config, error) {
	c := Config{}
	p, err := settings.Parse(rows(), &c, args, getenv, &c.ShowVersion, "obsidian-mcp bridge --help")
	c.Settings, c.Warnings = p.Settings, append(p.Ignored, p.Warnings...)
	return c, err
}

// endpointURL checks an MCP endpoint URL.
func endpointURL(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("must be an http:// or https:// URL, e.g. http://127.0.0.1:3000/mcp")
	}
	return u, nil
}

// endpoints are the MCP URL and the Bridge Protocol v1 root for mcpURL.
func endpoints(mcpURL string) (string, string) {
	u, err := endpointURL(mcpURL)
	if err != nil {
		return mcpURL, mcpURL
	}
	base := *u
	base.RawQuery, base.Fragment = "", ""
	base.Path = strings.TrimSuffix(strings.TrimSuffix(base.Path, "/"), "/mcp")
	base.RawPath = ""
	return u.String(), strings.TrimSuffix(base.String(), "/")
}

// target is where the bridge's server is: the URL file's URL when it has
// one, else --url, else host and port.
func (c Config) target() string {
	if u := readURLFile(c.URLFile); u != "" {
		return u
	}
	if c.URL != "" {
		return c.URL
	}
	return "http://" + net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) + "/mcp"
}

// readURLFile is the URL in file, "" when there is none or it is not one.
func readURLFile(file string) string {
	if file == "" {
		return ""
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimSpace(line)
	if _, err := endpointURL(line); err != nil {
		return ""
	}
	return line
}

// upstreams is the upstream side of the bridge for c: the transport,
// how resources and prompts are forwarded, and how the server is followed
// to a new address.
type upstreams struct {
	// mcp and v1 are the two transports; transport is the one configured
	// (either, or auto over both).
	mcp       *upstream.MCP
	v1        *upstream.V1
	transport Upstream
	forwarder func() Forwarder
	retarget  func(mcpURL, v1Base string)

	mu      sync.Mutex
	current string
}

func newUpstreams(c Config, logger *slog.Logger, version string) *upstreams {
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	mcpURL, v1Base := endpoints(c.target())
	m := &upstream.MCP{URL: mcpURL, APIKey: c.APIKey, HTTP: hc, ClientName: "obsidian-mcp-bridge", ClientVersion: version}
	v := &upstream.V1{Base: v1Base, HTTP: hc}
	u := &upstreams{mcp: m, v1: v, current: mcpURL}
	switch c.Transport {
	case TransportMCP:
		u.transport = m
		u.forwarder = func() Forwarder { return m }
		u.retarget = func(mcpURL, _ string) { m.SetURL(mcpURL) }
	case TransportV1:
		u.transport = v
		u.forwarder = func() Forwarder { return nil }
		u.retarget = func(_, v1Base string) { v.SetBase(v1Base) }
	default:
		a := &upstream.Auto{MCP: m, V1: v, Logger: logger}
		u.transport = a
		u.forwarder = func() Forwarder {
			if f := a.Forwarder(); f != nil {
				return f
			}
			return nil
		}
		u.retarget = a.Retarget
	}
	return u
}

// where names the server in messages.
func (u *upstreams) where() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.current
}

// follow re-reads where the server is and, when that changed, points the
// transport there. It reports whether it did.
func (u *upstreams) follow(c Config) bool {
	if c.URLFile == "" {
		return false
	}
	next := c.target()
	u.mu.Lock()
	changed := next != u.current
	u.current = next
	u.mu.Unlock()
	if changed {
		u.retarget(endpoints(next))
	}
	return changed
}

// Specs are the bridge's settings, for --help and the README.
func Specs() []settings.Spec { return settings.Specs(rows()) }

// Connect is the upstream side of the bridge c configures, and the options
// that follow it; the caller adds its own (backoff, poll).
func Connect(c Config, logger *slog.Logger, name, version string) (Upstream, Options) {
	up := newUpstreams(c, logger, version)
	return up.transport, Options{
		Name:        name,
		Version:     version,
		Logger:      logger,
		CallTimeout: c.CallTimeout,
		Forwarder:   up.forwarder,
		Rediscover:  func() bool { return up.follow(c) },
		Target:      up.where,
	}
}

// Run runs `obsidian-mcp bridge` until in ends or ctx does; gone is
// whether nobody reads out any more.
func Run(ctx context.Context, c Config, in io.Reader, out io.Writer, logger *slog.Logger, name, version string, backoff Backoff, gone func() bool) error {
	up, opts := Connect(c, logger, name, version)
	opts.Backoff = backoff
	return New(up, opts).Serve(ctx, in, out, gone)
}

// Usage is `obsidian-mcp bridge --help`.
func Usage() string {
	var b strings.Builder
	b.WriteString(`obsidian-mcp bridge: a stdio MCP server in front of an HTTP one.

It serves over stdio the tools of a server reached over HTTP: the ObsiScripta
Bridge plugin inside Obsidian, ` + "`obsidian-mcp serve`" + `, or any MCP Streamable HTTP
server. It answers at once, whatever the server's state: until the server
answers, it lists no tools and a call says why and what to do, while it tries
again (1 s back-off doubling to 30 s); then it lists the server's tools and
keeps them up to date (every 5 s; the client is told when they change). It
exits when its input ends. Logs go to stderr.

Usage:
  obsidian-mcp bridge [flags]

Flags (each may also be set by its environment variable; a flag wins):
`)
	settings.WriteHelp(&b, Specs())
	return b.String()
}
