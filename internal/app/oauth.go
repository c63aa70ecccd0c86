package app

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
	"github.com/obsidian-mcp/obsidian-mcp/internal/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// resourceServer is serve's OAuth side, trusting cfg's issuer for tokens
// naming resource (its MCP URL as clients reach it): JWTs checked with the
// issuer's keys, other tokens by introspection when this server has a
// client id there; nil without an issuer. The issuer's metadata is read
// now: a server that could never check a token says so at start.
func resourceServer(ctx context.Context, cfg HTTPConfig, resource string) (*httpapi.OAuth, error) {
	if cfg.OAuthIssuer == "" {
		return nil, nil
	}
	check, err := tokenCheck(ctx, cfg.OAuthIssuer, cfg.OAuthClientID, cfg.OAuthClientSecret, resource)
	if err != nil {
		return nil, fmt.Errorf("--oauth-issuer %s: %w", cfg.OAuthIssuer, err)
	}
	return &httpapi.OAuth{
		Resource: oauth.Resource{URL: resource, AuthServers: []string{check.JWT.Metadata().Issuer}, Name: "obsidian-mcp", Scopes: oauth.Scopes},
		Checker:  check,
	}, nil
}

// tokenCheck discovers issuer and checks tokens for resource with it.
func tokenCheck(ctx context.Context, issuer, clientID, secret, resource string) (oauth.Either, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	iss, err := oauth.Discover(ctx, client, issuer, resource)
	if err != nil {
		return oauth.Either{}, err
	}
	check := oauth.Either{JWT: iss}
	if clientID != "" {
		if check.Opaque, err = oauth.Introspect(iss.Metadata(), client, resource, clientID, secret); err != nil {
			return oauth.Either{}, err
		}
	}
	return check, nil
}

// publicHost is the host name of a public URL, for the Host check.
func publicHost(public string) string {
	u, err := url.Parse(public)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// gatewayTokens is the gateway's token check for each namespace's
// resource, with issuer trusted; nil without an issuer.
func gatewayTokens(ctx context.Context, o gateway.OAuth) (func(resource string) httpapi.TokenChecker, error) {
	if o.Issuer == "" {
		return nil, nil
	}
	// The audience is each namespace's; the one given here is replaced.
	check, err := tokenCheck(ctx, o.Issuer, o.ClientID, o.ClientSecret, o.Issuer)
	if err != nil {
		return nil, err
	}
	return func(resource string) httpapi.TokenChecker { return check.For(resource) }, nil
}
