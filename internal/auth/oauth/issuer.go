package oauth

import (
	"cmp"
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// Issuer trusts an external authorization server for JWT access tokens
// (RFC 9068) minted for one resource, this server's.
type Issuer struct {
	meta     Metadata
	audience string
	keys     keySet
	now      func() time.Time
	// leeway absorbs small clock differences between the two machines.
	leeway time.Duration
}

// keySet checks a JWT's signature (oidc.RemoteKeySet, oidc.StaticKeySet).
type keySet interface {
	VerifySignature(ctx context.Context, jwt string) ([]byte, error)
}

// Local trusts an issuer whose keys are known here (the built-in
// authorization server's), for tokens whose audience is audience.
func Local(meta Metadata, audience string, keys ...crypto.PublicKey) *Issuer {
	return &Issuer{meta: meta, audience: audience, keys: &oidc.StaticKeySet{PublicKeys: keys}, now: time.Now, leeway: time.Minute}
}

// Metadata is what this server reads of an authorization server's
// metadata (RFC 8414, or OpenID Connect Discovery).
type Metadata struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint         string   `json:"token_endpoint,omitempty"`
	JWKSURI               string   `json:"jwks_uri"`
	RegistrationEndpoint  string   `json:"registration_endpoint,omitempty"`
	IntrospectionEndpoint string   `json:"introspection_endpoint,omitempty"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
}

// Discover reads the metadata of the authorization server at issuer
// (RFC 8414 first, then OpenID Connect Discovery, at the well-known paths
// each defines for an issuer with or without a path) and trusts it for
// tokens whose audience is audience.
func Discover(ctx context.Context, client *http.Client, issuer, audience string) (*Issuer, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("the issuer %q is not an http(s) URL", issuer)
	}
	if audience == "" {
		return nil, fmt.Errorf("no audience: the tokens' audience must name this server (its MCP URL)")
	}
	var errs []string
	for _, where := range metadataURLs(u) {
		meta, err := fetchMetadata(ctx, client, where)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if meta.Issuer != issuer {
			return nil, fmt.Errorf("%s names the issuer %q, not %q: the issuer must be given exactly as the server names itself", where, meta.Issuer, issuer)
		}
		if meta.JWKSURI == "" {
			return nil, fmt.Errorf("%s gives no jwks_uri: this server checks JWT access tokens with the issuer's keys", where)
		}
		keys := oidc.NewRemoteKeySet(oidc.ClientContext(context.WithoutCancel(ctx), client), meta.JWKSURI)
		return &Issuer{meta: meta, audience: audience, keys: keys, now: time.Now, leeway: time.Minute}, nil
	}
	return nil, fmt.Errorf("the issuer's metadata could not be read: %s", strings.Join(errs, "; "))
}

// metadataURLs are where an issuer's metadata may be: RFC 8414 §3 puts the
// well-known segment before the issuer's path, OpenID Connect Discovery
// after it.
func metadataURLs(u *url.URL) []string {
	base := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.Path, "/")
	out := []string{base + "/.well-known/oauth-authorization-server" + path}
	if path != "" {
		out = append(out, base+"/.well-known/openid-configuration"+path)
	}
	return append(out, base+path+"/.well-known/openid-configuration")
}

func fetchMetadata(ctx context.Context, client *http.Client, where string) (Metadata, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return Metadata{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return Metadata{}, fmt.Errorf("%s: %v", where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Metadata{}, fmt.Errorf("%s: %s", where, resp.Status)
	}
	var meta Metadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return Metadata{}, fmt.Errorf("%s: not JSON metadata: %v", where, err)
	}
	return meta, nil
}

// Metadata is the authorization server's metadata, as read.
func (i *Issuer) Metadata() Metadata { return i.meta }

// claims are the members of a JWT access token checked here (RFC 9068).
type claims struct {
	Issuer    string          `json:"iss"`
	Subject   string          `json:"sub"`
	Audience  audience        `json:"aud"`
	Expiry    *json.Number    `json:"exp"`
	NotBefore *json.Number    `json:"nbf"`
	ClientID  string          `json:"client_id"`
	Azp       string          `json:"azp"`
	Scope     string          `json:"scope"`
	Scp       []string        `json:"scp"`
	Resource  json.RawMessage `json:"resource"`
	TokenID   string          `json:"jti"`
}

// audience is "aud": one string or a list.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*a = many
	return nil
}

// Check implements Checker: the signature by one of the issuer's keys
// (an unknown key id fetches its key set again: rotation), then the
// issuer, the audience (RFC 8707: a token for another resource is not
// good here), the expiry and the start.
func (i *Issuer) Check(ctx context.Context, token string) (Access, error) {
	payload, err := i.keys.VerifySignature(ctx, token)
	if err != nil {
		return Access{}, Invalid("its signature is not one of the issuer's keys, or it is not a signed JWT")
	}
	var c claims
	dec := json.NewDecoder(strings.NewReader(string(payload)))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return Access{}, Invalid("its claims are not readable")
	}
	now := i.now()
	switch {
	case c.Issuer != i.meta.Issuer:
		return Access{}, Invalid(fmt.Sprintf("it was issued by %q, not the issuer this server trusts", c.Issuer))
	case !containsURL(c.Audience, i.audience):
		return Access{}, Invalid("it was issued for another resource (its audience is not " + i.audience + ")")
	case c.Expiry == nil:
		return Access{}, Invalid("it has no expiry")
	}
	exp, err := c.Expiry.Int64()
	if err != nil {
		return Access{}, Invalid("its expiry is not a number")
	}
	if now.After(time.Unix(exp, 0).Add(i.leeway)) {
		return Access{}, Invalid("it has expired")
	}
	if c.NotBefore != nil {
		if nbf, err := c.NotBefore.Int64(); err != nil || now.Add(i.leeway).Before(time.Unix(nbf, 0)) {
			return Access{}, Invalid("it is not valid yet")
		}
	}
	return Access{Subject: c.Subject, ClientID: cmp.Or(c.ClientID, c.Azp), Scopes: scopesOf(c.Scope, c.Scp), Expires: time.Unix(exp, 0), TokenID: c.TokenID}, nil
}

// containsURL reports whether list holds want, a trailing slash aside.
func containsURL(list []string, want string) bool {
	want = strings.TrimSuffix(want, "/")
	for _, a := range list {
		if strings.TrimSuffix(a, "/") == want {
			return true
		}
	}
	return false
}

// For is the same issuer trusted for tokens whose audience is audience:
// another resource served beside this one (a gateway's namespaces), with
// the same key set.
func (i *Issuer) For(audience string) *Issuer {
	c := *i
	c.audience = audience
	return &c
}
