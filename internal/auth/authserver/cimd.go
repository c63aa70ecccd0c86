package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Client ID metadata documents (MCP authorization, 2025-11-25 on): a
// client may name itself by an https URL instead of registering; that URL
// serves its metadata (client_id, client_name, redirect_uris), which this
// server fetches when the client first comes and keeps for a while. The
// consent page then names the site the document came from, which the
// client cannot choose, beside the name it gives itself.

// Bounds on what a document may cost this server.
const (
	maxDocument    = 5 << 10 // bytes: the drafts suggest 5 KiB
	documentTTL    = 10 * time.Minute
	maxDocuments   = 100
	documentWindow = 10 * time.Second
)

// documents fetches and keeps client ID metadata documents.
type documents struct {
	client *http.Client
	now    func() time.Time
	// fetching bounds the fetches at once: anyone who reaches /authorize
	// can make this server fetch a URL.
	fetching chan struct{}

	mu   sync.Mutex
	kept map[string]keptDocument
}

type keptDocument struct {
	c       Client
	fetched time.Time
}

// newDocuments fetches with client, or, when it is nil, with one that
// follows no redirect, gives up after documentWindow and, unless
// localOK, connects to public addresses only: a URL naming this machine
// or the home network must not make the server reach into it (SSRF).
// localOK is for a server that is itself only reachable here (a loopback
// issuer), where no one else could send such a URL.
func newDocuments(client *http.Client, localOK bool) *documents {
	if client == nil {
		dialer := &net.Dialer{Timeout: documentWindow}
		if !localOK {
			dialer.Control = publicOnly
		}
		client = &http.Client{
			Timeout:       documentWindow,
			Transport:     &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: documentWindow, ResponseHeaderTimeout: documentWindow},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return &documents{client: client, now: time.Now, kept: map[string]keptDocument{}, fetching: make(chan struct{}, 4)}
}

// notPublic are ranges IsPrivate and the others leave out: "this
// network", and the shared address space of carrier-grade NAT, which is
// also where a tailnet's machines are.
var notPublic = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10")}

// publicOnly refuses a connection to an address that is not on the
// public internet: loopback, private, link-local, unspecified, multicast,
// carrier-grade NAT (a tailnet).
func publicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return fmt.Errorf("%s is not a public address", ip)
	}
	for _, p := range notPublic {
		if p.Contains(ip) {
			return fmt.Errorf("%s is not a public address", ip)
		}
	}
	return nil
}

// IsDocumentURL reports whether a client id is a metadata document's URL:
// https, a host, a path beyond "/", no fragment, user or dot segments.
func IsDocumentURL(id string) bool {
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || u.RawQuery != "" {
		return false
	}
	if u.Path == "" || u.Path == "/" {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// document is the client whose id is the URL id, from its document.
func (d *documents) document(ctx context.Context, id string) (Client, error) {
	d.mu.Lock()
	k, ok := d.kept[id]
	d.mu.Unlock()
	if ok && d.now().Sub(k.fetched) < documentTTL {
		return k.c, nil
	}
	c, err := d.fetch(ctx, id)
	if err != nil {
		return Client{}, fmt.Errorf("the client's metadata document %s: %w", id, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.kept) >= maxDocuments {
		for u, k := range d.kept {
			if d.now().Sub(k.fetched) >= documentTTL {
				delete(d.kept, u)
			}
		}
		for u := range d.kept {
			if len(d.kept) < maxDocuments {
				break
			}
			delete(d.kept, u)
		}
	}
	d.kept[id] = keptDocument{c: c, fetched: d.now()}
	return c, nil
}

func (d *documents) fetch(ctx context.Context, id string) (Client, error) {
	ctx, cancel := context.WithTimeout(ctx, documentWindow)
	defer cancel()
	select {
	case d.fetching <- struct{}{}:
		defer func() { <-d.fetching }()
	case <-ctx.Done():
		return Client{}, errors.New("was not fetched: too many are being fetched at once; try again")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return Client{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return Client{}, fmt.Errorf("cannot be fetched: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Client{}, fmt.Errorf("answered %s (redirects are not followed)", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return Client{}, fmt.Errorf("cannot be read: %w", err)
	}
	if len(data) > maxDocument {
		return Client{}, fmt.Errorf("is over %d bytes", maxDocument)
	}
	var doc registration // RFC 7591's client metadata, as registration takes it
	if err := json.Unmarshal(data, &doc); err != nil {
		return Client{}, fmt.Errorf("is not JSON client metadata: %w", err)
	}
	return documentClient(doc, id)
}

// documentClient is the client a document at URL id describes: it must
// name id as its client_id, and say what registration would accept.
func documentClient(doc registration, id string) (Client, error) {
	if doc.ClientID != id {
		return Client{}, fmt.Errorf("names client_id %q, not its own URL", doc.ClientID)
	}
	c, bad := doc.client()
	if bad != nil {
		return Client{}, bad
	}
	c.ID = id
	return c, nil
}
