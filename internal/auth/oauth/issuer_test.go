package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// testIssuer is a small authorization server for the unit tests: its
// metadata (RFC 8414) and its key set, which a test can rotate; it signs
// whatever claims a test asks for. The end-to-end proof runs against a
// real one (cmd/obsidian-mcp, TestOAuthExternalIssuer).
type testIssuer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys []jose.JSONWebKey // private
	// fetches counts the key set's downloads.
	fetches int
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	ti := &testIssuer{}
	ti.rotate(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(Metadata{Issuer: ti.srv.URL, JWKSURI: ti.srv.URL + "/jwks", TokenEndpoint: ti.srv.URL + "/token"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		ti.mu.Lock()
		defer ti.mu.Unlock()
		ti.fetches++
		var set jose.JSONWebKeySet
		for _, k := range ti.keys {
			set.Keys = append(set.Keys, k.Public())
		}
		_ = json.NewEncoder(w).Encode(set)
	})
	ti.srv = httptest.NewServer(mux)
	t.Cleanup(ti.srv.Close)
	return ti
}

// rotate adds a new signing key, which signs from then on.
func (ti *testIssuer) rotate(t *testing.T) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ti.mu.Lock()
	defer ti.mu.Unlock()
	ti.keys = append(ti.keys, jose.JSONWebKey{Key: key, KeyID: "k" + string(rune('0'+len(ti.keys))), Algorithm: "RS256", Use: "sig"})
}

// sign signs claims with the newest key.
func (ti *testIssuer) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	ti.mu.Lock()
	k := ti.keys[len(ti.keys)-1]
	ti.mu.Unlock()
	return signWith(t, jose.SigningKey{Algorithm: jose.RS256, Key: k}, claims)
}

func signWith(t *testing.T, key jose.SigningKey, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const resource = "https://vault.example.com/mcp"

// TestCheck: a token is accepted only when signed by one of the issuer's
// keys, issued by it, for this resource, within its time; each refusal is
// ErrInvalidToken saying why, and never holds the token.
func TestCheck(t *testing.T) {
	ti := newTestIssuer(t)
	ctx := context.Background()
	iss, err := Discover(ctx, http.DefaultClient, ti.srv.URL, resource)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	good := func() map[string]any {
		return map[string]any{"iss": ti.srv.URL, "sub": "ana", "aud": resource, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(),
			"client_id": "claude", "scope": "vault:read vault:write"}
	}
	with := func(k string, v any) map[string]any {
		c := good()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	cases := []struct {
		name  string
		token string
		why   string // "" when accepted
	}{
		{"good", ti.sign(t, good()), ""},
		{"audience in a list", ti.sign(t, with("aud", []string{"other", resource + "/"})), ""},
		{"scp list", ti.sign(t, with("scope", nil)), ""},
		{"expired", ti.sign(t, with("exp", now.Add(-2*time.Minute).Unix())), "it has expired"},
		{"no expiry", ti.sign(t, with("exp", nil)), "it has no expiry"},
		{"not yet valid", ti.sign(t, with("nbf", now.Add(time.Hour).Unix())), "not valid yet"},
		{"another resource", ti.sign(t, with("aud", "https://other.example.com/mcp")), "another resource"},
		{"another issuer", ti.sign(t, with("iss", "https://evil.example.com")), "issued by"},
		{"a key not the issuer's", signWith(t, jose.SigningKey{Algorithm: jose.RS256, Key: other}, good()), "signature"},
		{"an EC key not the issuer's", signWith(t, jose.SigningKey{Algorithm: jose.ES256, Key: ec}, good()), "signature"},
		{"HMAC with a guessable secret", signWith(t, jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}, good()), "signature"},
		{"unsigned (alg none)", unsigned(good()), "signature"},
		{"not a JWT", "opaque-token-123", "signature"},
	}
	for _, c := range cases {
		got, err := iss.Check(ctx, c.token)
		switch {
		case c.why == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.why == "" && (got.Subject != "ana" || got.ClientID != "claude"):
			t.Errorf("%s: %+v", c.name, got)
		case c.why != "" && (!errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), c.why)):
			t.Errorf("%s: %v, want ErrInvalidToken saying %q", c.name, err, c.why)
		case err != nil && strings.Contains(err.Error(), c.token):
			t.Errorf("%s: the error holds the token", c.name)
		}
	}
	if a, _ := iss.Check(ctx, ti.sign(t, with("scope", "vault:read"))); !a.CanRead() || a.CanWrite() {
		t.Errorf("vault:read: %+v", a)
	}
	if a, _ := iss.Check(ctx, ti.sign(t, with("scope", "openid profile"))); a.CanRead() {
		t.Errorf("no vault scope: %+v", a)
	}
	c := with("scope", nil)
	c["scp"] = []string{"vault:write"}
	if a, _ := iss.Check(ctx, ti.sign(t, c)); !a.CanWrite() || !a.CanRead() {
		t.Errorf("scp vault:write: %+v", a)
	}
}

// unsigned is claims as a JWT with "alg":"none".
func unsigned(claims map[string]any) string {
	payload, _ := json.Marshal(claims)
	enc := func(b []byte) string { return strings.TrimRight(base64URL(b), "=") }
	return enc([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + enc(payload) + "."
}

// TestKeyRotation: a token signed by a key the issuer added after the
// server read its key set is accepted: the unknown key id fetches the set
// again.
func TestKeyRotation(t *testing.T) {
	ti := newTestIssuer(t)
	ctx := context.Background()
	iss, err := Discover(ctx, http.DefaultClient, ti.srv.URL, resource)
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{"iss": ti.srv.URL, "sub": "ana", "aud": resource, "exp": time.Now().Add(time.Hour).Unix(), "scope": "vault:read"}
	if _, err := iss.Check(ctx, ti.sign(t, claims)); err != nil {
		t.Fatal(err)
	}
	ti.rotate(t)
	if _, err := iss.Check(ctx, ti.sign(t, claims)); err != nil {
		t.Errorf("after rotation: %v", err)
	}
	if ti.fetches < 2 {
		t.Errorf("the key set was fetched %d times", ti.fetches)
	}
}

// TestDiscover: the issuer must name itself as given; a missing key set,
// or no metadata at all, is said at once.
func TestDiscover(t *testing.T) {
	ti := newTestIssuer(t)
	ctx := context.Background()
	for _, c := range []struct{ issuer, audience, want string }{
		{ti.srv.URL + "/", resource, "names the issuer"},
		{ti.srv.URL, "", "no audience"},
		{"ftp://x", resource, "not an http(s) URL"},
		{ti.srv.URL + "/tenant", resource, "could not be read"},
	} {
		if _, err := Discover(ctx, http.DefaultClient, c.issuer, c.audience); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Discover(%q, %q) = %v, want %q", c.issuer, c.audience, err, c.want)
		}
	}
}
