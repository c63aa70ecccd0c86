package serve

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// Config is `obsidian-mcp serve`'s configuration: the server's, and
// how it listens and whom it answers.
type Config struct {
	vaultserver.Config
	HTTP HTTPConfig
}

// HTTPConfig is how `obsidian-mcp serve` listens and whom it answers.
type HTTPConfig struct {
	// Listen is the address: host:port.
	Listen string
	// Key, when set, is required on every request.
	Key httpapi.Key
	// AllowedHosts are the Host names accepted besides the loopback ones.
	AllowedHosts []string
	// CORSOrigins are the browser origins allowed besides loopback ones;
	// "*" allows any.
	CORSOrigins []string
	// URLFile, when set, receives the server's URL once it listens, for
	// `obsidian-mcp bridge --url-file` to find it on whatever port.
	URLFile string
	// OAuthIssuer, when set, is the authorization server whose access
	// tokens the server accepts (it is then an OAuth resource server).
	OAuthIssuer string
	// OAuthBuiltIn serves the built-in authorization server, its grants
	// kept in OAuthStore.
	OAuthBuiltIn bool
	OAuthStore   string
	// OAuthClientID and OAuthClientSecret are this server's credentials at
	// the issuer, for introspection (RFC 7662).
	OAuthClientID     string
	OAuthClientSecret string
	// TLSCert and TLSKey, when set, make the server speak HTTPS.
	TLSCert, TLSKey string
	// ACME, when it has domains, makes the server speak HTTPS with
	// certificates it gets from an ACME CA itself.
	ACME httpapi.ACME
	// Proxies are the reverse proxies whose X-Forwarded-Proto is believed.
	Proxies []netip.Prefix
	// PublicURL is the server's address as its clients reach it
	// (scheme://host[:port]), when that is not the one it listens on: a
	// tunnel's or a proxy's.
	PublicURL string
}

// httpRows are serve's own settings: how it listens and whom it
// answers, its OAuth, its TLS and what it tells others.
func httpRows() []settings.Row[HTTPConfig] {
	return slices.Concat(listenRows(), oauthRows(), tlsRows())
}

// listenRows are where serve listens and whom it lets in.
func listenRows() []settings.Row[HTTPConfig] {
	return []settings.Row[HTTPConfig]{
		{Flag: "listen", Env: "OBSIDIAN_MCP_LISTEN", Default: "127.0.0.1:3000",
			Help: "`serve`: the address to listen on, host:port. Only loopback (127.0.0.1, ::1, localhost) unless an API key is set.",
			Set: func(c *HTTPConfig, v string) error {
				host, port, err := net.SplitHostPort(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be host:port, e.g. 127.0.0.1:3000")
				}
				if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
					return fmt.Errorf("the port must be a number from 0 to 65535")
				}
				c.Listen = net.JoinHostPort(host, port)
				return nil
			}},
		{Flag: "api-key-file", Env: "OBSIDIAN_MCP_API_KEY_FILE",
			Help: "`serve`: a file holding the API key (its first line; at least 16 characters, no spaces: `openssl rand -hex 32` makes one). With a key, every request must carry it as `Authorization: Bearer <key>`, `X-Api-Key` or `X-ObsiScripta-Api-Key`, and the server may listen beyond loopback.",
			Set: func(c *HTTPConfig, v string) error {
				if v == "" {
					return nil
				}
				key, err := httpapi.ReadKeyFile(v)
				c.Key = key
				return err
			}},
		{Env: "OBSIDIAN_MCP_API_KEY", Secret: true,
			Help: "`serve`: the API key itself, as an environment variable (never a flag: a command line is visible to every user of the machine). `--api-key-file` wins.",
			Set: func(c *HTTPConfig, v string) error {
				if c.Key.Set() || v == "" {
					return nil
				}
				key, err := httpapi.NewKey(v)
				c.Key = key
				return err
			}},
		{Flag: "allowed-hosts", Env: "OBSIDIAN_MCP_ALLOWED_HOSTS",
			Help: "`serve`: comma-separated host names accepted in the `Host` header besides localhost, 127.0.0.1 and ::1 (DNS-rebinding protection), e.g. `notes.lan`.",
			Set: func(c *HTTPConfig, v string) error {
				c.AllowedHosts = nil
				for _, h := range strings.Split(v, ",") {
					if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
						if strings.ContainsAny(h, "/ ") {
							return fmt.Errorf("%q is not a host name", h)
						}
						c.AllowedHosts = append(c.AllowedHosts, h)
					}
				}
				return nil
			}},
		{Flag: "cors-origin", Env: "OBSIDIAN_MCP_CORS_ORIGINS",
			Help: "`serve`: comma-separated browser origins allowed to call the server besides loopback ones (`http://localhost:8080`), e.g. `https://chat.example`; a request from any other `Origin` is refused. `*` allows every origin, as the Bridge Protocol v1 contract does: any web page you visit could then use your notes, so use it only with an API key.",
			Set: func(c *HTTPConfig, v string) error {
				c.CORSOrigins = nil
				for _, o := range strings.Split(v, ",") {
					if o = strings.TrimSpace(o); o == "" {
						continue
					}
					if o != "*" {
						u, err := url.Parse(o)
						if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" && u.Path != "/" {
							return fmt.Errorf("%q is not an origin (scheme://host[:port])", o)
						}
						o = strings.ToLower(u.Scheme + "://" + u.Host)
					}
					c.CORSOrigins = append(c.CORSOrigins, o)
				}
				return nil
			}},
	}
}

// oauthRows are serve's OAuth: the built-in server, or an issuer.
func oauthRows() []settings.Row[HTTPConfig] {
	return []settings.Row[HTTPConfig]{
		{Flag: "oauth", Env: "OBSIDIAN_MCP_OAUTH", Default: "false", Bool: true,
			Help: "`serve`: be your own OAuth 2.1 authorization server, so that Claude on the web and the phone (and any MCP client with OAuth) can sign in: a client registers itself, you approve it once on a consent page with your passphrase (`obsidian-mcp oauth passphrase` sets it), choosing read-only or read-write, and it gets short-lived tokens for this server alone and refresh tokens that rotate. `obsidian-mcp oauth grants` lists the approvals, `obsidian-mcp oauth revoke` ends one at once. `--oauth`, or `true`/`false`.",
			Set: func(c *HTTPConfig, v string) error {
				b, err := strconv.ParseBool(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be true or false")
				}
				c.OAuthBuiltIn = b
				return nil
			}},
		{Flag: "oauth-store", Env: "OBSIDIAN_MCP_OAUTH_STORE",
			Help: "`serve` and `oauth`: the file where `--oauth` keeps its signing key, passphrase (hashed), clients and grants (refresh tokens hashed); default `oauth.json` in obsidian-mcp's folder of the user's configuration directory.",
			Set:  func(c *HTTPConfig, v string) error { c.OAuthStore = strings.TrimSpace(v); return nil }},
		{Flag: "oauth-issuer", Env: "OBSIDIAN_MCP_OAUTH_ISSUER",
			Help: "`serve`: the URL of an OAuth 2.1 / OpenID Connect authorization server (your identity provider) whose access tokens the server accepts, beside the API key: a client such as Claude's web and mobile apps signs in there and sends the token. The server publishes where to sign in (`/.well-known/oauth-protected-resource`), finds the issuer's keys from its metadata (RFC 8414 or OpenID discovery) and follows their rotation, and accepts a JWT access token only when it was issued for this server (audience `<public URL>/mcp`), is unexpired, and grants `vault:read` (read-only) or `vault:write`.",
			Set: func(c *HTTPConfig, v string) error {
				c.OAuthIssuer = strings.TrimSpace(v)
				if c.OAuthIssuer == "" {
					return nil
				}
				u, err := url.Parse(c.OAuthIssuer)
				if err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http" {
					return fmt.Errorf("%q is not an http(s) URL", v)
				}
				return nil
			}},
		{Flag: "oauth-client-id", Env: "OBSIDIAN_MCP_OAUTH_CLIENT_ID",
			Help: "`serve`: this server's client id at the `--oauth-issuer`, with its secret (`--oauth-client-secret-file` or `OBSIDIAN_MCP_OAUTH_CLIENT_SECRET`): tokens that are not JWTs (opaque ones) are then checked by asking the issuer (token introspection, RFC 7662) on every request, so a token the issuer revokes is refused at once.",
			Set:  func(c *HTTPConfig, v string) error { c.OAuthClientID = strings.TrimSpace(v); return nil }},
		{Flag: "oauth-client-secret-file", Env: "OBSIDIAN_MCP_OAUTH_CLIENT_SECRET_FILE",
			Help: "`serve`: a file holding the secret of `--oauth-client-id` (its first line).",
			Set: func(c *HTTPConfig, v string) error {
				if v = strings.TrimSpace(v); v == "" {
					return nil
				}
				var err error
				c.OAuthClientSecret, err = httpapi.SecretFile(v)
				return err
			}},
		{Env: "OBSIDIAN_MCP_OAUTH_CLIENT_SECRET", Secret: true,
			Help: "`serve`: the secret of `--oauth-client-id`, as an environment variable (never a flag). `--oauth-client-secret-file` wins.",
			Set: func(c *HTTPConfig, v string) error {
				if c.OAuthClientSecret == "" {
					c.OAuthClientSecret = strings.TrimSpace(v)
				}
				return nil
			}},
		{Flag: "public-url", Env: "OBSIDIAN_MCP_PUBLIC_URL",
			Help: "`serve`: the server's address as its clients reach it, when not the one it listens on, e.g. `https://vault.example.com` behind a tunnel or proxy. With `--oauth-issuer`, tokens must name `<public URL>/mcp` as their audience; its host is accepted in the `Host` header.",
			Set: func(c *HTTPConfig, v string) error {
				c.PublicURL = strings.TrimSuffix(strings.TrimSpace(v), "/")
				if c.PublicURL == "" {
					return nil
				}
				u, err := url.Parse(c.PublicURL)
				if err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http" || u.Path != "" || u.RawQuery != "" {
					return fmt.Errorf("%q is not a scheme://host[:port] URL", v)
				}
				return nil
			}},
	}
}

// tlsRows are serve's HTTPS, the proxies it trusts, and the URL file.
func tlsRows() []settings.Row[HTTPConfig] {
	return []settings.Row[HTTPConfig]{
		{Flag: "tls-cert", Env: "OBSIDIAN_MCP_TLS_CERT",
			Help: "`serve`: a TLS certificate (PEM, the chain after the server's own) to serve HTTPS with, beside `--tls-key`; read again when the file changes, so a renewal needs no restart.",
			Set:  func(c *HTTPConfig, v string) error { c.TLSCert = strings.TrimSpace(v); return nil }},
		{Flag: "tls-key", Env: "OBSIDIAN_MCP_TLS_KEY",
			Help: "`serve`: the private key (PEM) of `--tls-cert`.",
			Set:  func(c *HTTPConfig, v string) error { c.TLSKey = strings.TrimSpace(v); return nil }},
		{Flag: "tls-acme", Env: "OBSIDIAN_MCP_TLS_ACME",
			Help: "`serve`: comma-separated domain names of this server, e.g. `vault.example.com`, to serve HTTPS with certificates it gets and renews itself from an ACME CA (Let's Encrypt unless `--tls-acme-directory`), instead of `--tls-cert`. The CA checks the name on this listener (TLS-ALPN-01): the name must reach it on port 443 from the internet (a forwarded port; a tunnel brings its own certificate and needs none of this). The names are accepted in the `Host` header.",
			Set: func(c *HTTPConfig, v string) (err error) {
				c.ACME.Domains, err = httpapi.ParseDomains(strings.Split(v, ","))
				return err
			}},
		{Flag: "tls-acme-cache", Env: "OBSIDIAN_MCP_TLS_ACME_CACHE",
			Help: "`serve`: the folder where `--tls-acme` keeps its CA account key and certificates, so that a restart does not ask again; default `acme` in obsidian-mcp's folder of the user's configuration directory.",
			Set:  func(c *HTTPConfig, v string) error { c.ACME.Cache = strings.TrimSpace(v); return nil }},
		{Flag: "tls-acme-directory", Env: "OBSIDIAN_MCP_TLS_ACME_DIRECTORY",
			Help: "`serve`: the ACME directory URL of the CA for `--tls-acme`; default Let's Encrypt's (`https://acme-v02.api.letsencrypt.org/directory`; its staging one is `https://acme-staging-v02.api.letsencrypt.org/directory`).",
			Set: func(c *HTTPConfig, v string) error {
				c.ACME.Directory = strings.TrimSpace(v)
				if u, err := url.Parse(c.ACME.Directory); c.ACME.Directory != "" && (err != nil || u.Scheme != "https" || u.Host == "") {
					return fmt.Errorf("%q is not an https URL", v)
				}
				return nil
			}},
		{Flag: "tls-acme-email", Env: "OBSIDIAN_MCP_TLS_ACME_EMAIL",
			Help: "`serve`: an address the CA of `--tls-acme` may write to about the certificates (expiry notices); none by default.",
			Set:  func(c *HTTPConfig, v string) error { c.ACME.Email = strings.TrimSpace(v); return nil }},
		{Flag: "behind-proxy", Env: "OBSIDIAN_MCP_BEHIND_PROXY",
			Help: "`serve`: comma-separated addresses or networks (CIDR) of reverse proxies in front of the server that terminate HTTPS, e.g. `192.168.1.10`: from them alone, `X-Forwarded-Proto: https` counts as HTTPS. With OAuth, a request from another machine must come over HTTPS (this server's TLS, or such a proxy); from this machine (a tunnel such as cloudflared or Tailscale Funnel) it may not.",
			Set: func(c *HTTPConfig, v string) (err error) {
				c.Proxies, err = httpapi.ParseProxies(v)
				return err
			}},
		{Flag: "url-file", Env: "OBSIDIAN_MCP_URL_FILE",
			Help: "`serve`: a file to write the server's URL to once it listens (removed when it stops), so that `obsidian-mcp bridge --url-file` finds it again after a restart on another port (`--listen 127.0.0.1:0` picks a free one).",
			Set: func(c *HTTPConfig, v string) error {
				if v = strings.TrimSpace(v); v != "" && strings.ContainsAny(v, "\x00\n\r") {
					return fmt.Errorf("must be a file path on one line")
				}
				c.URLFile = strings.TrimSpace(v)
				return nil
			}},
	}
}

// rows are the server's settings, then serve's own.
func rows() []settings.Row[Config] {
	return append(settings.Lift(vaultserver.Rows(), func(s *Config) *vaultserver.Config { return &s.Config }),
		settings.Lift(httpRows(), func(s *Config) *HTTPConfig { return &s.HTTP })...)
}

// Specs are serve's own settings, for the README.
func Specs() []settings.Spec { return settings.Specs(httpRows()) }

// ParseConfig reads serve's flags from args and, for flags not given,
// environment variables through getenv; flag.ErrHelp for --help. Every
// invalid setting is reported, joined.
func ParseConfig(args []string, getenv func(string) string) (Config, error) {
	c := Config{Config: vaultserver.NewConfig()}
	p, err := settings.Parse(rows(), &c, args, getenv, &c.ShowVersion, "--help")
	if errors.Is(err, flag.ErrHelp) {
		return c, err
	}
	c.Ignored, c.Settings = p.Ignored, p.Settings
	errs := []error{err, c.Finish(vaultserver.FlagNames)}
	beyond := c.HTTP.Listen != "" && !httpapi.Loopback(c.HTTP.Listen)
	files := c.HTTP.TLSCert != "" || c.HTTP.TLSKey != ""
	acme := len(c.HTTP.ACME.Domains) > 0
	tls := files || acme
	switch {
	case files && acme:
		errs = append(errs, errors.New("--tls-cert and --tls-acme are two ways to get a certificate: choose one"))
	case !acme && (c.HTTP.ACME.Cache != "" || c.HTTP.ACME.Directory != "" || c.HTTP.ACME.Email != ""):
		errs = append(errs, errors.New("--tls-acme-cache, --tls-acme-directory and --tls-acme-email go with --tls-acme: name the server's domain there"))
	case c.HTTP.OAuthBuiltIn && c.HTTP.OAuthIssuer != "":
		errs = append(errs, errors.New("--oauth and --oauth-issuer are two ways to sign clients in: choose one (the built-in server, or your identity provider)"))
	case (c.HTTP.OAuthClientID != "") != (c.HTTP.OAuthClientSecret != ""):
		errs = append(errs, errors.New("--oauth-client-id and its secret (--oauth-client-secret-file or OBSIDIAN_MCP_OAUTH_CLIENT_SECRET) go together: give both, or neither"))
	case c.HTTP.OAuthClientID != "" && c.HTTP.OAuthIssuer == "":
		errs = append(errs, errors.New("--oauth-client-id is set without --oauth-issuer: name the authorization server to ask"))
	case files && (c.HTTP.TLSCert == "" || c.HTTP.TLSKey == ""):
		errs = append(errs, errors.New("--tls-cert and --tls-key go together: give both, or neither"))
	case beyond && !c.HTTP.Key.Set() && c.HTTP.OAuthIssuer == "" && !c.HTTP.OAuthBuiltIn:
		errs = append(errs, fmt.Errorf("--listen %s reaches beyond this machine, and no API key is set: anyone on the network could read and change your notes. Set OBSIDIAN_MCP_API_KEY or --api-key-file, or --oauth-issuer, or listen on 127.0.0.1", c.HTTP.Listen))
	case beyond && (c.HTTP.OAuthIssuer != "" || c.HTTP.OAuthBuiltIn) && !tls && len(c.HTTP.Proxies) == 0:
		errs = append(errs, fmt.Errorf("--listen %s reaches beyond this machine with OAuth, but over plain HTTP: tokens would cross the network in the clear. Serve HTTPS (--tls-cert and --tls-key, or --tls-acme), or name the reverse proxy that does (--behind-proxy), or listen on 127.0.0.1 behind a tunnel", c.HTTP.Listen))
	}
	return c, errors.Join(errs...)
}

// Usage is `obsidian-mcp serve --help`: the stdio server's flags and
// the HTTP ones.
func Usage() string {
	var b strings.Builder
	b.WriteString(`obsidian-mcp serve: the tools of obsidian-mcp over HTTP.

The same tools, backends, folder policy and errors as over stdio, for clients
that speak HTTP: MCP at /mcp (Streamable HTTP, and HTTP+SSE with /mcp/message),
the Bridge Protocol v1 at /bridge/v1 (the ObsiScripta plugin's API), and the
envelope API at /v1/mcp. It listens on loopback only unless an API key is set.
Logs go to stderr.

Usage:
  obsidian-mcp serve [flags]

Flags (each may also be set by its environment variable; a flag wins):
`)
	settings.WriteHelp(&b, settings.Specs(rows()))
	return b.String()
}
