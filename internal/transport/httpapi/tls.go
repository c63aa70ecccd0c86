package httpapi

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
)

// TLSConfig serves the certificate and key in certFile and keyFile (PEM),
// read again at the next handshake once either file changes, so that a
// renewed certificate (certbot, Tailscale's) is served without a restart.
// A file that cannot be read at start is an error; a renewal that cannot
// be read keeps the certificate before it.
func TLSConfig(certFile, keyFile string) (*tls.Config, error) {
	c := &certFiles{cert: certFile, key: keyFile}
	if err := c.load(); err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: c.get}, nil
}

type certFiles struct {
	cert, key string
	mu        sync.Mutex
	current   *tls.Certificate
	// seen are the files as read: a renewal that replaces a file (a
	// rename: another file) or rewrites it (size, time) is read again.
	seen []os.FileInfo
}

func (c *certFiles) stat() []os.FileInfo {
	var out []os.FileInfo
	for _, f := range []string{c.cert, c.key} {
		if fi, err := os.Stat(f); err == nil {
			out = append(out, fi)
		}
	}
	return out
}

func (c *certFiles) changed() bool {
	now := c.stat()
	if len(now) != len(c.seen) {
		return true
	}
	for i, fi := range now {
		old := c.seen[i]
		if !os.SameFile(fi, old) || fi.Size() != old.Size() || !fi.ModTime().Equal(old.ModTime()) {
			return true
		}
	}
	return false
}

func (c *certFiles) load() error {
	seen := c.stat()
	pair, err := tls.LoadX509KeyPair(c.cert, c.key)
	if err != nil {
		return fmt.Errorf("the TLS certificate %s and key %s cannot be used: %w", c.cert, c.key, err)
	}
	c.current, c.seen = &pair, seen
	return nil
}

func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed() {
		old := c.current
		if err := c.load(); err != nil {
			c.current = old // a renewal half written: the one before serves
		}
	}
	return c.current, nil
}

// ParseProxies reads --behind-proxy: addresses and networks (CIDR) of the
// reverse proxies whose X-Forwarded-Proto is believed.
func ParseProxies(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a network (CIDR), e.g. 192.168.1.10 or 10.0.0.0/8", s)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// secure is Secure with this server's proxies.
func (h *Server) secure(r *http.Request) bool { return Secure(r, h.opts.TrustedProxies) }

// Secure reports whether r came over HTTPS: to this server's own TLS,
// from this machine (a tunnel's local end, such as cloudflared's or
// Tailscale's, which carried it over HTTPS), or through one of proxies
// whose X-Forwarded-Proto says https. A proxy that is not trusted cannot
// say so: anyone could send the header.
func Secure(r *http.Request, proxies []netip.Prefix) bool {
	if r.TLS != nil {
		return true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range proxies {
		if p.Contains(ip) {
			return strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https")
		}
	}
	return ip.IsLoopback()
}
