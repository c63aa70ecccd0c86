package oauth

import (
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"testing"
)

func base64URL(b []byte) string { return base64.URLEncoding.EncodeToString(b) }

// TestResourceMetadata: the metadata is served at the path RFC 9728 derives
// from the resource's URL and at the bare one, and names the resource,
// its authorization servers and scopes; the challenge points at it.
func TestResourceMetadata(t *testing.T) {
	r := Resource{URL: "https://vault.example.com/mcp", AuthServers: []string{"https://id.example.com"}, Scopes: Scopes, Name: "obsidian-mcp"}
	if got := r.MetadataPaths(); !slices.Equal(got, []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}) {
		t.Errorf("paths %v", got)
	}
	w := httptest.NewRecorder()
	r.ServeMetadata(w, httptest.NewRequest("GET", r.MetadataPaths()[0], nil))
	var doc struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		Scopes               []string `json:"scopes_supported"`
		Bearer               []string `json:"bearer_methods_supported"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.Resource != r.URL || doc.AuthorizationServers[0] != "https://id.example.com" ||
		!slices.Equal(doc.Scopes, Scopes) || !slices.Equal(doc.Bearer, []string{"header"}) {
		t.Errorf("metadata %s (%v)", w.Body, err)
	}
	want := `Bearer resource_metadata="https://vault.example.com/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="issued by 'x'", scope="vault:read"`
	if got := r.Challenge("invalid_token", `issued by "x"`+"\n", "vault:read"); got != want {
		t.Errorf("challenge\n%s\nwant\n%s", got, want)
	}
}
