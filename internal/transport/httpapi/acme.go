package httpapi

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// ACME is certificates for a server's own names from an ACME CA (Let's
// Encrypt by default), obtained and renewed while it runs.
type ACME struct {
	// Domains are the names clients reach the server by; a TLS handshake
	// naming another is refused (no certificate is asked for it).
	Domains []string
	// Cache is the folder keeping the account key and the certificates,
	// so that a restart does not ask again (CAs limit how often).
	Cache string
	// Directory is the CA's ACME directory URL (default Let's Encrypt's).
	Directory string
	// Email, when set, is given to the CA for expiry notices.
	Email string
}

// ParseDomains reads domain names for ACME (a flag's comma-separated
// list, or a file's list): lower-cased, trimmed, empty ones dropped; a
// word that cannot be a certificate's name (no dot, a scheme, a port, a
// wildcard, an address with a user or a space) is an error naming it,
// each such word its own.
func ParseDomains(words []string) ([]string, error) {
	var out []string
	var errs []error
	for _, d := range words {
		if d = strings.ToLower(strings.TrimSpace(d)); d == "" {
			continue
		}
		if strings.ContainsAny(d, "/:*@ ") || !strings.Contains(d, ".") {
			errs = append(errs, fmt.Errorf("%q is not a domain name such as vault.example.com", d))
			continue
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

// TLSConfig serves the domains' certificates, asking the CA for one at the
// first handshake that needs it and renewing it 30 days before it
// expires. The CA checks that the server holds the name with the
// TLS-ALPN-01 challenge, answered on this same listener: the name must
// reach it on port 443 from the CA.
func (a ACME) TLSConfig() (*tls.Config, error) {
	if len(a.Domains) == 0 {
		return nil, fmt.Errorf("no domain to ask certificates for")
	}
	if err := os.MkdirAll(a.Cache, 0o700); err != nil {
		return nil, fmt.Errorf("the ACME cache folder %s: %w", a.Cache, err)
	}
	m := &autocert.Manager{
		Prompt:     autocert.AcceptTOS,
		HostPolicy: autocert.HostWhitelist(a.Domains...),
		Cache:      autocert.DirCache(a.Cache),
		Email:      a.Email,
		Client:     &acme.Client{DirectoryURL: a.Directory},
	}
	tc := m.TLSConfig()
	tc.MinVersion = tls.VersionTLS12
	return tc, nil
}
