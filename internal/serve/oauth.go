package serve

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/authserver"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
)

// resourceServer is serve's OAuth side, trusting cfg's issuer for tokens
// naming resource (its MCP URL as clients reach it): JWTs checked with the
// issuer's keys, other tokens by introspection when this server has a
// client id there; nil without an issuer. The issuer's metadata is read
// now: a server that could never check a token says so at start.
func resourceServer(ctx context.Context, cfg HTTPConfig, resource string) (*bearer.Verifier, error) {
	if cfg.OAuthIssuer == "" {
		return nil, nil
	}
	check, err := oauth.Trust(ctx, cfg.OAuthIssuer, cfg.OAuthClientID, cfg.OAuthClientSecret, resource)
	if err != nil {
		return nil, fmt.Errorf("--oauth-issuer %s: %w", cfg.OAuthIssuer, err)
	}
	return &bearer.Verifier{
		Resource: oauth.Resource{URL: resource, AuthServers: []string{check.JWT.Metadata().Issuer}, Name: "obsidian-mcp", Scopes: oauth.Scopes},
		Checker:  check,
	}, nil
}

// builtInServer is `serve --oauth`: the authorization server at the
// server's public address, and the resource server checking its tokens.
func builtInServer(cfg HTTPConfig, resource string, logger *slog.Logger) (*authserver.Server, *bearer.Verifier, error) {
	issuer := strings.TrimSuffix(resource, "/mcp")
	as, err := authserver.Start(cfg.OAuthStore, "--oauth", issuer, []string{resource}, logger)
	if err != nil {
		return nil, nil, err
	}
	return as, &bearer.Verifier{
		Resource: oauth.Resource{URL: resource, AuthServers: []string{issuer}, Name: "obsidian-mcp", Scopes: oauth.Scopes},
		Checker:  as.Checker(resource),
	}, nil
}

// publicHost is the host name of a public URL, for the Host check.
func publicHost(public string) string {
	u, err := url.Parse(public)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// oauthDoctor is doctor's word on serve's OAuth settings: whether the
// built-in server could approve anyone, or the issuer's metadata can be
// read. It changes nothing.
func oauthDoctor(ctx context.Context, cfg HTTPConfig, d *doctor.Report) {
	var msg string
	var ok bool
	switch {
	case cfg.OAuthBuiltIn:
		msg, ok = authserver.Doctor("OAuth (serve --oauth)", cfg.OAuthStore)
	case cfg.OAuthIssuer != "":
		msg, ok = oauth.Doctor(ctx, "OAuth (--oauth-issuer)", cfg.OAuthIssuer)
	default:
		return
	}
	if ok {
		d.OK("%s", msg)
	} else {
		d.Skip("%s", msg)
	}
}
