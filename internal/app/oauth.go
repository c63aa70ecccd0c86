package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/authserver"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
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
	check, err := tokenCheck(ctx, cfg.OAuthIssuer, cfg.OAuthClientID, cfg.OAuthClientSecret, resource)
	if err != nil {
		return nil, fmt.Errorf("--oauth-issuer %s: %w", cfg.OAuthIssuer, err)
	}
	return &bearer.Verifier{
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
func gatewayTokens(ctx context.Context, o gateway.OAuth) (func(resource string) bearer.TokenChecker, error) {
	if o.Issuer == "" {
		return nil, nil
	}
	// The audience is each namespace's; the one given here is replaced.
	check, err := tokenCheck(ctx, o.Issuer, o.ClientID, o.ClientSecret, o.Issuer)
	if err != nil {
		return nil, err
	}
	return func(resource string) bearer.TokenChecker { return check.For(resource) }, nil
}

// builtInServer is `serve --oauth`: the authorization server at the
// server's public address, and the resource server checking its tokens.
func builtInServer(cfg HTTPConfig, resource string, logger *slog.Logger) (*authserver.Server, *bearer.Verifier, error) {
	issuer := strings.TrimSuffix(resource, "/mcp")
	as, err := newAuthServer(cfg.OAuthStore, "--oauth", issuer, []string{resource}, logger)
	if err != nil {
		return nil, nil, err
	}
	return as, &bearer.Verifier{
		Resource: oauth.Resource{URL: resource, AuthServers: []string{issuer}, Name: "obsidian-mcp", Scopes: oauth.Scopes},
		Checker:  as.Checker(resource),
	}, nil
}

// newAuthServer is the built-in authorization server at issuer, for
// resources, its grants in the store file (setting names the option that
// asked for it, for the error).
func newAuthServer(file, setting, issuer string, resources []string, logger *slog.Logger) (*authserver.Server, error) {
	store, err := openOAuthStore(file)
	if err != nil {
		return nil, err
	}
	if !store.HasPassphrase() {
		return nil, fmt.Errorf("%s: no passphrase is set, so no client could be approved: run `obsidian-mcp oauth passphrase` first", setting)
	}
	// The provider logs through slog's default logger (its WithLogger
	// option does nothing in zitadel/oidc v3.52): make it this one, so
	// its words come on stderr in the same form and at the same level.
	slog.SetDefault(logger)
	return authserver.New(authserver.Options{Store: store, Issuer: issuer, Resources: resources, Logger: logger})
}

// gatewayAuthServer is the gateway's oauth.built_in: one authorization
// server at the gateway's address for every namespace's resource, and
// the dashboard's (on the debug listener at debug).
func gatewayAuthServer(cfg *gateway.Config, base string, debug net.Addr, logger *slog.Logger) (*authserver.Server, error) {
	resources := []string{gateway.DebugResource(debug)}
	for _, ns := range cfg.Namespaces {
		resources = append(resources, gateway.ResourceURL(base, ns.Name))
	}
	return newAuthServer(cfg.OAuth.Store, "oauth.built_in", base, resources, logger)
}

// openOAuthStore opens the built-in server's store (oauthStoreFile).
func openOAuthStore(file string) (*authserver.Store, error) {
	file, err := oauthStoreFile(file)
	if err != nil {
		return nil, err
	}
	return authserver.OpenStore(file)
}

// oauthStoreFile is file, or oauth.json in obsidian-mcp's folder of the
// user's configuration directory.
func oauthStoreFile(file string) (string, error) {
	return inConfigDir(file, "oauth.json", "the OAuth store", "--oauth-store")
}

// inConfigDir is given, or name in obsidian-mcp's folder of the user's
// configuration directory; what and flag word the error when there is
// none.
func inConfigDir(given, name, what, flag string) (string, error) {
	if given != "" {
		return given, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration folder for %s (%v): give one with %s", what, err, flag)
	}
	return filepath.Join(dir, "obsidian-mcp", name), nil
}

// oauthDoctor is doctor's word on serve's OAuth settings: whether the
// built-in server could approve anyone, or the issuer's metadata can be
// read. It changes nothing.
func oauthDoctor(ctx context.Context, cfg HTTPConfig, d *doctor.Report) {
	var msg string
	var ok bool
	switch {
	case cfg.OAuthBuiltIn:
		msg, ok = builtInDoctor("OAuth (serve --oauth)", cfg.OAuthStore)
	case cfg.OAuthIssuer != "":
		msg, ok = issuerDoctor(ctx, "OAuth (--oauth-issuer)", cfg.OAuthIssuer)
	default:
		return
	}
	if ok {
		d.OK("%s", msg)
	} else {
		d.Skip("%s", msg)
	}
}

// gatewayOAuthDoctor is the same for the gateway's oauth: block; a
// gateway that would not start is not ready.
func gatewayOAuthDoctor(ctx context.Context, o gateway.OAuth, d *doctor.Report) bool {
	var msg string
	var ok bool
	if o.BuiltIn {
		msg, ok = builtInDoctor("oauth (built_in)", o.Store)
	} else {
		msg, ok = issuerDoctor(ctx, "oauth (issuer)", o.Issuer)
	}
	if !ok {
		d.Fail(msg, "see README, \"Use it from Claude on the web and phone\"")
		return false
	}
	d.OK("%s", msg)
	return true
}

// builtInDoctor says whether the built-in server's store has a
// passphrase, and how many clients are approved.
func builtInDoctor(what, store string) (string, bool) {
	file, err := oauthStoreFile(store)
	if err != nil {
		return fmt.Sprintf("%s: would not start: %v", what, err), false
	}
	pass, grants, err := authserver.Peek(file)
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && !pass:
		return fmt.Sprintf("%s: would not start: no passphrase is set in %s; run `obsidian-mcp oauth passphrase`", what, file), false
	case err != nil:
		return fmt.Sprintf("%s: would not start: %v", what, err), false
	}
	return fmt.Sprintf("%s: the built-in authorization server; store %s, passphrase set, %d approved client(s) (obsidian-mcp oauth grants)", what, file, grants), true
}

// issuerDoctor reads the issuer's metadata.
func issuerDoctor(ctx context.Context, what, issuer string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	iss, err := oauth.Discover(ctx, &http.Client{Timeout: 10 * time.Second}, issuer, issuer)
	if err != nil {
		return fmt.Sprintf("%s: would not start: %v", what, err), false
	}
	return fmt.Sprintf("%s: trusts %s; its keys at %s", what, iss.Metadata().Issuer, iss.Metadata().JWKSURI), true
}

// handlerOf and pathsOf are the built-in server's, when there is one.
func handlerOf(as *authserver.Server) http.Handler {
	if as == nil {
		return nil
	}
	return as.Handler()
}

func pathsOf(as *authserver.Server) []string {
	if as == nil {
		return nil
	}
	return as.Paths()
}
