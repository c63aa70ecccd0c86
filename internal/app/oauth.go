package app

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// resourceServer is serve's OAuth side with issuer trusted for tokens
// naming resource (its MCP URL as clients reach it); nil without an
// issuer. The issuer's metadata is read now: a server that could never
// check a token says so at start.
func resourceServer(ctx context.Context, issuer, resource string) (*httpapi.OAuth, error) {
	if issuer == "" {
		return nil, nil
	}
	client := &http.Client{Timeout: 30 * time.Second}
	iss, err := oauth.Discover(ctx, client, issuer, resource)
	if err != nil {
		return nil, fmt.Errorf("--oauth-issuer %s: %w", issuer, err)
	}
	return &httpapi.OAuth{
		Resource: oauth.Resource{URL: resource, AuthServers: []string{iss.Metadata().Issuer}, Name: "obsidian-mcp", Scopes: oauth.Scopes},
		Checker:  iss,
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

// gatewayTokens is the gateway's token check for each namespace's
// resource, with issuer trusted; nil without an issuer.
func gatewayTokens(ctx context.Context, issuer string) (func(resource string) httpapi.TokenChecker, error) {
	if issuer == "" {
		return nil, nil
	}
	// The audience is each namespace's; the one given here is replaced.
	iss, err := oauth.Discover(ctx, &http.Client{Timeout: 30 * time.Second}, issuer, issuer)
	if err != nil {
		return nil, err
	}
	return func(resource string) httpapi.TokenChecker { return iss.For(resource) }, nil
}
