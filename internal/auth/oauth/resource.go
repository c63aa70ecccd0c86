package oauth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Resource is this server as an OAuth protected resource: its canonical
// URL (what tokens name as their audience, RFC 8707), the authorization
// servers it trusts, and the scopes it knows.
type Resource struct {
	// URL is the MCP endpoint's canonical URL, as clients reach it
	// (https://vault.example.com/mcp).
	URL           string
	AuthServers   []string
	Name          string
	Scopes        []string
	Documentation string
}

// metadataPrefix is the well-known path of Protected Resource Metadata.
const metadataPrefix = "/.well-known/oauth-protected-resource"

// MetadataPaths are where this resource's metadata is served: the path
// RFC 9728 §3.1 derives from the resource's URL (the well-known segment
// before its path), and the bare one, which clients of the 2025-06-18
// revision also try.
func (r Resource) MetadataPaths() []string {
	u, err := url.Parse(r.URL)
	if err != nil || strings.Trim(u.Path, "/") == "" {
		return []string{metadataPrefix}
	}
	return []string{metadataPrefix + strings.TrimSuffix(u.Path, "/"), metadataPrefix}
}

// MetadataURL is the metadata's URL, for the challenges.
func (r Resource) MetadataURL() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return metadataPrefix
	}
	return u.Scheme + "://" + u.Host + r.MetadataPaths()[0]
}

// ServeMetadata writes the Protected Resource Metadata document.
func (r Resource) ServeMetadata(w http.ResponseWriter, _ *http.Request) {
	doc := map[string]any{
		"resource":                 r.URL,
		"authorization_servers":    r.AuthServers,
		"scopes_supported":         r.Scopes,
		"bearer_methods_supported": []string{"header"},
	}
	if r.Name != "" {
		doc["resource_name"] = r.Name
	}
	if r.Documentation != "" {
		doc["resource_documentation"] = r.Documentation
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=300")
	_ = json.NewEncoder(w).Encode(doc)
}

// Challenge is the WWW-Authenticate value of a refusal (RFC 6750 §3, RFC
// 9728 §5.1): where the metadata is, the scopes to ask for, and, when a
// token was presented, the error and its description.
func (r Resource) Challenge(errCode, description, scope string) string {
	parts := []string{`resource_metadata=` + strconv.Quote(r.MetadataURL())}
	if errCode != "" {
		parts = append(parts, `error=`+strconv.Quote(errCode))
	}
	if description != "" {
		parts = append(parts, `error_description=`+strconv.Quote(headerSafe(description)))
	}
	if scope != "" {
		parts = append(parts, `scope=`+strconv.Quote(scope))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// headerSafe is s in the characters RFC 6750 §3 allows in an
// error_description: printable ASCII but '"' and '\\' (quotes become ').
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\' || r < 0x20 || r > 0x7e:
			return -1
		}
		return r
	}, s)
}
