package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Introspection checks a token by asking its issuer (RFC 7662) on every
// request: the way to check opaque tokens, and the way a revoked token is
// refused at once. This server authenticates to the issuer as a client of
// its own (client_secret_basic).
type Introspection struct {
	endpoint, issuer, audience string
	clientID, secret           string
	client                     *http.Client
	now                        func() time.Time
}

// Introspect is the introspection endpoint of the issuer whose metadata
// is meta, asked with this server's client id and secret, for tokens
// whose audience is audience.
func Introspect(meta Metadata, client *http.Client, audience, clientID, secret string) (*Introspection, error) {
	switch {
	case meta.IntrospectionEndpoint == "":
		return nil, errors.New("the issuer's metadata gives no introspection_endpoint (RFC 7662)")
	case clientID == "" || secret == "":
		return nil, errors.New("introspection needs this server's client id and secret at the issuer")
	}
	return &Introspection{endpoint: meta.IntrospectionEndpoint, issuer: meta.Issuer, audience: audience, clientID: clientID, secret: secret, client: client, now: time.Now}, nil
}

// For is the same introspection for tokens of another audience.
func (i *Introspection) For(audience string) *Introspection {
	c := *i
	c.audience = audience
	return &c
}

// introspected is what an introspection answer says (RFC 7662 §2.2).
type introspected struct {
	Active   bool         `json:"active"`
	Scope    string       `json:"scope"`
	ClientID string       `json:"client_id"`
	Subject  string       `json:"sub"`
	Expiry   *json.Number `json:"exp"`
	Issuer   string       `json:"iss"`
	Audience audience     `json:"aud"`
}

// Check implements Checker: the issuer must say the token is active, for
// this resource (its audience), from itself, and unexpired.
func (i *Introspection) Check(ctx context.Context, token string) (Access, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, i.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Access{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: each part form-encoded before Basic.
	req.SetBasicAuth(url.QueryEscape(i.clientID), url.QueryEscape(i.secret))
	resp, err := i.client.Do(req)
	if err != nil {
		return Access{}, fmt.Errorf("the issuer's introspection endpoint cannot be reached: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return Access{}, fmt.Errorf("the issuer's introspection endpoint answered %s (is this server's client id and secret right?)", resp.Status)
	}
	var got introspected
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		return Access{}, fmt.Errorf("the issuer's introspection answer is not JSON: %v", err)
	}
	switch {
	case !got.Active:
		return Access{}, Invalid("the issuer says it is not active (revoked, expired or unknown)")
	case got.Issuer != "" && got.Issuer != i.issuer:
		return Access{}, Invalid(fmt.Sprintf("it was issued by %q, not the issuer this server trusts", got.Issuer))
	case len(got.Audience) == 0:
		return Access{}, Invalid("the issuer names no audience for it, so it may be for another resource")
	case !containsURL(got.Audience, i.audience):
		return Access{}, Invalid("it was issued for another resource (its audience is not " + i.audience + ")")
	}
	a := Access{Subject: got.Subject, ClientID: got.ClientID, Scopes: strings.Fields(got.Scope)}
	if got.Expiry != nil {
		exp, err := got.Expiry.Int64()
		if err != nil {
			return Access{}, Invalid("its expiry is not a number")
		}
		if a.Expires = time.Unix(exp, 0); i.now().After(a.Expires) {
			return Access{}, Invalid("it has expired")
		}
	}
	return a, nil
}

// Either checks a JWT with the issuer's keys (JWT) and any other token by
// introspection (Opaque, when set): a signed token needs no call, an
// opaque one has no other check.
type Either struct {
	JWT    *Issuer
	Opaque *Introspection
}

// Check implements Checker.
func (e Either) Check(ctx context.Context, token string) (Access, error) {
	if strings.Count(token, ".") == 2 || e.Opaque == nil {
		return e.JWT.Check(ctx, token)
	}
	return e.Opaque.Check(ctx, token)
}

// For is the same check for tokens of another audience.
func (e Either) For(audience string) Either {
	out := Either{JWT: e.JWT.For(audience)}
	if e.Opaque != nil {
		out.Opaque = e.Opaque.For(audience)
	}
	return out
}

// Trust discovers issuer and checks tokens for resource with it: JWTs
// with the issuer's keys, and, when this server has a client id there,
// other tokens by introspection.
func Trust(ctx context.Context, issuer, clientID, secret, resource string) (Either, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	iss, err := Discover(ctx, client, issuer, resource)
	if err != nil {
		return Either{}, err
	}
	check := Either{JWT: iss}
	if clientID != "" {
		if check.Opaque, err = Introspect(iss.Metadata(), client, resource, clientID, secret); err != nil {
			return Either{}, err
		}
	}
	return check, nil
}

// Doctor reads the issuer's metadata, for doctor's line on a setting
// (what) that trusts it: whether a server could start with it.
func Doctor(ctx context.Context, what, issuer string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	iss, err := Discover(ctx, &http.Client{Timeout: 10 * time.Second}, issuer, issuer)
	if err != nil {
		return fmt.Sprintf("%s: would not start: %v", what, err), false
	}
	return fmt.Sprintf("%s: trusts %s; its keys at %s", what, iss.Metadata().Issuer, iss.Metadata().JWKSURI), true
}
