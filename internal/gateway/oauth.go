package gateway

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/authserver"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// With `oauth.issuer` set (or `oauth.built_in`, the gateway then being
// its own authorization server, Options.AuthServer), each namespace is an
// OAuth resource server of its own: its resource is <public URL>/mcp/<name>, so a token the issuer
// minted for one namespace is refused by the others (RFC 8707), and its
// Protected Resource Metadata is at
// /.well-known/oauth-protected-resource/mcp/<name> (RFC 9728). The API key
// keeps working beside tokens. A vault:read token's requests are
// read-only: a vault namespace refuses its writes with the guard of
// --read-only; a command namespace, whose server's tools this gateway
// cannot vouch for, refuses its tool calls (commandPeer).

// metadataPrefix is where the namespaces' metadata is served.
const metadataPrefix = "/.well-known/oauth-protected-resource"

// protect makes every namespace a resource server, now that the API's
// address is known (the public URL, else the listener's), and the
// dashboard's data (/debug/state, /debug/stream) one too, at the debug
// listener's address (nil: none).
func (g *Gateway) protect(addr, debug net.Addr) {
	if !g.oauthOn() {
		return
	}
	base := g.cfg.Base(addr)
	issuer := cmp.Or(g.cfg.OAuth.Issuer, base)
	protected := func(resource, name string) *bearer.Verifier {
		return &bearer.Verifier{
			Resource: oauth.Resource{URL: resource, AuthServers: []string{issuer}, Scopes: oauth.Scopes, Name: "obsidian-mcp gateway: " + name},
			Checker:  g.opts.Tokens(resource),
		}
	}
	if debug != nil {
		g.debugOAuth = protected(DebugResource(debug), "dashboard")
	}
	for _, ns := range g.order {
		ns.oauth = protected(ResourceURL(base, ns.name), ns.name)
	}
}

// oauthOn reports whether the namespaces take tokens.
func (g *Gateway) oauthOn() bool { return g.cfg.OAuth.On() && g.opts.Tokens != nil }

// Base is the gateway's address as clients reach it: public_url, the
// first ACME domain, or the API listener's (https with tls).
func (c *Config) Base(addr net.Addr) string {
	switch {
	case c.OAuth.PublicURL != "":
		return c.OAuth.PublicURL
	case len(c.ACME.Domains) > 0:
		return "https://" + c.ACME.Domains[0] // the CA reaches the name on 443: so do clients
	}
	base := strings.TrimSuffix(httpapi.ReachableURL(addr), "/mcp")
	if c.TLSCert != "" {
		base = "https://" + strings.TrimPrefix(base, "http://")
	}
	return base
}

// DebugResource is the dashboard's resource: its data is served at the
// debug listener's /debug.
func DebugResource(debug net.Addr) string {
	return strings.TrimSuffix(httpapi.ReachableURL(debug), "/mcp") + "/debug"
}

// ResourceURL is namespace name's resource (its MCP URL) at base.
func ResourceURL(base, name string) string { return base + "/mcp/" + name }

// insecure refuses, with 403 HTTPS_REQUIRED, a request that came over
// plain HTTP from another machine (httpapi.Secure): a bearer token, a
// passphrase or a code sent in the clear can be taken and replayed. It
// reports whether it refused.
func (g *Gateway) insecure(w http.ResponseWriter, r *http.Request) bool {
	if httpapi.Secure(r, g.cfg.BehindProxy) {
		return false
	}
	g.refuse(w, http.StatusForbidden, "HTTPS_REQUIRED", "this gateway takes OAuth sign-ins and tokens over HTTPS only, and this request came over plain HTTP from another machine",
		"Reach it at its https:// address, or from this machine; a reverse proxy that terminates TLS must be named in behind_proxy and send X-Forwarded-Proto: https.")
	return true
}

// authServerPath reports whether path is the built-in authorization
// server's.
func (g *Gateway) authServerPath(path string) bool {
	return g.opts.AuthServer != nil && httpapi.PathIn(path, g.opts.AuthPaths)
}

// serveMetadata serves a namespace's Protected Resource Metadata.
func (g *Gateway) serveMetadata(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, metadataPrefix+"/mcp/")
	ns := g.spaces[name]
	if ns == nil || ns.oauth == nil || r.Method != http.MethodGet {
		g.refuse(w, http.StatusNotFound, "NOT_FOUND", "no resource metadata at "+r.URL.Path, "Each namespace's is at "+metadataPrefix+"/mcp/{namespace}.")
		return
	}
	ns.oauth.Resource.ServeMetadata(w, r)
}

// OAuthOptions are the gateway's OAuth options: the issuer's token
// checks, or the built-in authorization server at the gateway's address
// (api, unless public_url says otherwise) for every namespace's resource
// and the dashboard's (at debug).
func OAuthOptions(ctx context.Context, cfg *Config, api, debug net.Addr, logger *slog.Logger) (Options, error) {
	opts := Options{Logger: logger}
	switch {
	case cfg.OAuth.BuiltIn:
		base := cfg.Base(api)
		resources := []string{DebugResource(debug)}
		for _, ns := range cfg.Namespaces {
			resources = append(resources, ResourceURL(base, ns.Name))
		}
		as, err := authserver.Start(cfg.OAuth.Store, "oauth.built_in", base, resources, logger)
		if err != nil {
			return opts, err
		}
		opts.Tokens = func(resource string) bearer.TokenChecker { return as.Checker(resource) }
		opts.AuthServer, opts.AuthPaths = as.Handler(), as.Paths()
	case cfg.OAuth.Issuer != "":
		// The audience is each namespace's; the one given here is
		// replaced.
		check, err := oauth.Trust(ctx, cfg.OAuth.Issuer, cfg.OAuth.ClientID, cfg.OAuth.ClientSecret, cfg.OAuth.Issuer)
		if err != nil {
			return opts, fmt.Errorf("oauth.issuer: %w", err)
		}
		opts.Tokens = func(resource string) bearer.TokenChecker { return check.For(resource) }
	}
	return opts, nil
}

// oauthDoctor is doctor's word on the oauth: block; a gateway that would
// not start is not ready.
func oauthDoctor(ctx context.Context, o OAuth, d *doctor.Report) bool {
	var msg string
	var ok bool
	if o.BuiltIn {
		msg, ok = authserver.Doctor("oauth (built_in)", o.Store)
	} else {
		msg, ok = oauth.Doctor(ctx, "oauth (issuer)", o.Issuer)
	}
	if !ok {
		d.Fail(msg, "see README, \"Use it from Claude on the web and phone\"")
		return false
	}
	d.OK("%s", msg)
	return true
}
