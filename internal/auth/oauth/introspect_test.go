package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestIntrospection: an opaque token is accepted only when the issuer,
// asked with this server's own credentials, says it is active, from
// itself, for this resource, unexpired; each refusal says why.
func TestIntrospection(t *testing.T) {
	now := time.Now()
	answers := map[string]map[string]any{
		"good":       {"active": true, "iss": "https://id.example", "aud": resource, "scope": "vault:read", "client_id": "claude", "sub": "ana", "exp": now.Add(time.Hour).Unix()},
		"list aud":   {"active": true, "aud": []string{"x", resource}, "scope": "vault:write"},
		"revoked":    {"active": false},
		"other iss":  {"active": true, "iss": "https://evil.example", "aud": resource},
		"no aud":     {"active": true, "scope": "vault:read"},
		"other aud":  {"active": true, "aud": "https://other.example/mcp"},
		"expired":    {"active": true, "aud": resource, "exp": now.Add(-time.Minute).Unix()},
		"server err": nil,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok || id != "rs%2Fone" || secret != "s%26cret" || r.PostFormValue("token_type_hint") != "access_token" {
			http.Error(w, "bad client", http.StatusUnauthorized)
			return
		}
		a := answers[r.PostFormValue("token")]
		if a == nil {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		_ = json.NewEncoder(w).Encode(a)
	}))
	defer srv.Close()
	in, err := Introspect(Metadata{Issuer: "https://id.example", IntrospectionEndpoint: srv.URL}, srv.Client(), resource, "rs/one", "s&cret")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if a, err := in.Check(ctx, "good"); err != nil || a.Subject != "ana" || a.ClientID != "claude" || a.CanWrite() || !a.CanRead() {
		t.Errorf("good: %+v %v", a, err)
	}
	if a, err := in.Check(ctx, "list aud"); err != nil || !a.CanWrite() {
		t.Errorf("list aud: %+v %v", a, err)
	}
	for token, why := range map[string]string{"revoked": "not active", "other iss": "issued by", "no aud": "no audience", "other aud": "another resource", "expired": "expired"} {
		if _, err := in.Check(ctx, token); !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want %q", token, err, why)
		}
	}
	if _, err := in.Check(ctx, "server err"); err == nil || errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), "502") {
		t.Errorf("the endpoint failing: %v, want an error that is not the token's", err)
	}
	if _, err := Introspect(Metadata{Issuer: "x"}, srv.Client(), resource, "a", "b"); err == nil {
		t.Error("no introspection endpoint accepted")
	}
	// Either: a JWT-shaped token goes to the key check, anything else to
	// introspection.
	e := Either{JWT: &Issuer{meta: Metadata{Issuer: "https://id.example"}, audience: resource}, Opaque: in}
	if _, err := e.Check(ctx, "good"); err != nil {
		t.Errorf("Either, opaque: %v", err)
	}
}
