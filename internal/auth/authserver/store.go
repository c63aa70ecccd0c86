package authserver

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/trustelem/zxcvbn"
	"golang.org/x/crypto/bcrypt"

	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
)

// Store is what the authorization server keeps across restarts, in one
// file (mode 0600, in a folder of mode 0700): its signing key, the owner's
// passphrase (bcrypt), the registered clients, and the grants the owner
// approved, each with the hash (SHA-256) of its one live refresh token and
// of those it replaced. No token is stored: a refresh token is known by
// its hash; an access token is a JWT naming its grant.
//
// Several processes may share the file (a serve, and `obsidian-mcp oauth
// revoke` run beside it): every change takes an advisory lock, reads the
// file again, changes it and replaces it whole; a read looks again when
// the file changed, so a grant revoked elsewhere is refused at the next
// request.
type Store struct {
	file string
	lock *flock.Flock

	mu   sync.Mutex
	st   state
	seen os.FileInfo
	key  *rsa.PrivateKey

	// cost is bcrypt's for a new passphrase; 0 is bcrypt.DefaultCost.
	// Tests lower it: a hash is a tenth of a second of CPU by design.
	cost int
}

// state is the file's content.
type state struct {
	Key        string             `json:"signing_key"` // PEM, PKCS#8
	KeyID      string             `json:"key_id"`
	Passphrase string             `json:"passphrase,omitempty"` // bcrypt
	Clients    map[string]*Client `json:"clients"`
	Grants     map[string]*Grant  `json:"grants"`
}

// Client is a registered client (RFC 7591).
type Client struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	RedirectURIs []string  `json:"redirect_uris"`
	Native       bool      `json:"native"` // loopback or custom-scheme redirects (RFC 8252)
	Created      time.Time `json:"created"`
}

// Grant is the owner's approval of a client: what it may do, until
// revoked.
type Grant struct {
	ID       string    `json:"id"`
	ClientID string    `json:"client_id"`
	Subject  string    `json:"subject"`
	Scopes   []string  `json:"scopes"`
	Audience []string  `json:"audience"`
	Created  time.Time `json:"created"`
	Used     time.Time `json:"used"`
	// Refresh is the hash of the live refresh token; Spent those it
	// replaced, whose reuse revokes the grant (a stolen token).
	Refresh string   `json:"refresh"`
	Spent   []string `json:"spent,omitempty"`
}

// ErrReused is a refresh token presented again after it was replaced:
// someone holds a copy, so the whole grant was revoked.
var ErrReused = errors.New("this refresh token was already used, so the grant it belongs to has been revoked: sign in again")

// OpenStore opens (or creates) the store in file.
func OpenStore(file string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, fmt.Errorf("the authorization server's folder cannot be made: %w", err)
	}
	s := &Store{file: file, lock: flock.New(file + ".lock")}
	var made bool
	if err := s.read(func(st *state) { made = st.Key != "" }); err != nil {
		return nil, err
	}
	if made {
		return s, nil // nothing to write at every start
	}
	err := s.change(func(st *state) error {
		if st.Key != "" {
			return nil
		}
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return err
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return err
		}
		st.Key, st.KeyID = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), newID()[:16]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// newID is 128 random bits, hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newSecret is 256 random bits, hex: a refresh token.
func newSecret() string { return newID() + newID() }

func hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// reload reads the file again when it changed since it was read (s.mu
// held).
func (s *Store) reload() error {
	fi, err := os.Stat(s.file)
	if errors.Is(err, os.ErrNotExist) {
		s.st, s.seen = state{}, nil
		return nil
	}
	if err != nil {
		return err
	}
	if s.seen != nil && os.SameFile(fi, s.seen) && fi.ModTime().Equal(s.seen.ModTime()) && fi.Size() == s.seen.Size() {
		return nil
	}
	data, err := os.ReadFile(s.file)
	if err != nil {
		return err
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("the authorization server's store %s is damaged (%v): move it away to start afresh (every client then signs in again)", s.file, err)
	}
	if st.Key != "" {
		block, _ := pem.Decode([]byte(st.Key))
		if block == nil {
			return fmt.Errorf("the signing key in %s is not PEM", s.file)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		rk, ok := k.(*rsa.PrivateKey)
		if err != nil || !ok {
			return fmt.Errorf("the signing key in %s is not an RSA key", s.file)
		}
		s.key = rk
	}
	s.st, s.seen = st, fi
	return nil
}

// read runs f on the current state.
func (s *Store) read(f func(st *state)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return err
	}
	f(&s.st)
	return nil
}

// change runs f on the current state under the file's lock and writes
// the result whole (a temporary file renamed over it).
func (s *Store) change(f func(st *state) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.lock.Lock(); err != nil {
		return fmt.Errorf("the authorization server's store cannot be locked: %w", err)
	}
	defer func() { _ = s.lock.Unlock() }()
	if err := s.reload(); err != nil {
		return err
	}
	st := s.st
	st.Clients, st.Grants = cloneMap(s.st.Clients), cloneMap(s.st.Grants)
	if err := f(&st); err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.PutFile(s.file, data, 0o600); err != nil {
		return fmt.Errorf("the authorization server's store cannot be written: %w", err)
	}
	s.seen = nil
	return s.reload()
}

func cloneMap[V any](m map[string]*V) map[string]*V {
	out := make(map[string]*V, len(m))
	for k, v := range m {
		c := *v
		out[k] = &c
	}
	return out
}

// MinPassphraseGuesses is the strength a passphrase needs, as the number
// of guesses zxcvbn estimates it takes (log10): 10^14. At the 16 guesses
// a second the consent page lets anyone try (one bcrypt at a time), that
// is about 200,000 years to try them all; see docs/oauth.md.
const MinPassphraseGuesses = 14

// CheckStrength says why p is too easy to guess to approve clients with,
// or nil. The estimate is zxcvbn's (github.com/trustelem/zxcvbn), which
// knows common passwords, words, names, keyboard walks, dates and
// substitutions: "Tr0ub4dor&3" is about 10^11 guesses, four random
// common words about 10^14 to 10^22.
func CheckStrength(p string) error {
	if len(p) < 8 {
		return errors.New("the passphrase is too short: use four or more random words, e.g. \"kettle orbit sunlamp ferry\"")
	}
	if g := zxcvbn.PasswordStrength(p, nil).Guesses; math.Log10(g) < MinPassphraseGuesses {
		return fmt.Errorf("the passphrase is too easy to guess (about 10^%.0f guesses; at least 10^%d are needed, as anyone who reaches the consent page may try): use four or more random words, e.g. \"kettle orbit sunlamp ferry\"",
			math.Floor(math.Log10(g)), MinPassphraseGuesses)
	}
	return nil
}

// SetPassphrase sets the owner's passphrase, which approves clients; one
// CheckStrength refuses is not set.
func (s *Store) SetPassphrase(p string) error {
	if err := CheckStrength(p); err != nil {
		return err
	}
	cost := s.cost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	h, err := bcrypt.GenerateFromPassword([]byte(p), cost)
	if err != nil {
		return err
	}
	return s.change(func(st *state) error { st.Passphrase = string(h); return nil })
}

// HasPassphrase reports whether the owner set one.
func (s *Store) HasPassphrase() bool {
	var ok bool
	_ = s.read(func(st *state) { ok = st.Passphrase != "" })
	return ok
}

// CheckPassphrase reports whether p is the owner's passphrase.
func (s *Store) CheckPassphrase(p string) bool {
	var h string
	_ = s.read(func(st *state) { h = st.Passphrase })
	return h != "" && bcrypt.CompareHashAndPassword([]byte(h), []byte(p)) == nil
}

// maxIdleClients bounds the registered clients no grant names: anyone who
// reaches the server may register, so without a bound the file would grow
// without end. Past it, the oldest such registration is forgotten (its
// app registers again at its next sign-in).
const maxIdleClients = 100

// AddClient registers c, giving it an id.
func (s *Store) AddClient(c Client) (Client, error) {
	c.ID, c.Created = newID(), time.Now().UTC()
	return c, s.change(func(st *state) error {
		if st.Clients == nil {
			st.Clients = map[string]*Client{}
		}
		st.Clients[c.ID] = &c
		used := map[string]bool{}
		for _, g := range st.Grants {
			used[g.ClientID] = true
		}
		var idle []*Client
		for _, cl := range st.Clients {
			if !used[cl.ID] && cl.ID != c.ID {
				idle = append(idle, cl)
			}
		}
		sort.Slice(idle, func(i, j int) bool { return idle[i].Created.Before(idle[j].Created) })
		for len(idle) >= maxIdleClients {
			delete(st.Clients, idle[0].ID)
			idle = idle[1:]
		}
		return nil
	})
}

// Client is the registered client id.
func (s *Store) Client(id string) (Client, bool) {
	var c *Client
	_ = s.read(func(st *state) { c = st.Clients[id] })
	if c == nil {
		return Client{}, false
	}
	return *c, true
}

// NewGrant records the owner's approval and returns it with its first
// refresh token.
func (s *Store) NewGrant(g Grant) (Grant, string, error) {
	refresh := newSecret()
	g.ID, g.Created, g.Used, g.Refresh = newID(), time.Now().UTC(), time.Now().UTC(), hash(refresh)
	return g, refresh, s.change(func(st *state) error {
		if st.Grants == nil {
			st.Grants = map[string]*Grant{}
		}
		st.Grants[g.ID] = &g
		return nil
	})
}

// ByRefresh is the grant whose live refresh token is refresh. A token
// already replaced is a copy someone kept: the grant is revoked, and
// ErrReused returned.
func (s *Store) ByRefresh(refresh string) (Grant, error) {
	h := hash(refresh)
	var found Grant
	var live bool
	if err := s.read(func(st *state) {
		for _, g := range st.Grants {
			if g.Refresh == h {
				found, live = *g, true
			}
		}
	}); err != nil {
		return Grant{}, err
	}
	if live {
		// Only a reuse writes (the revocation); Rotate checks again under
		// the lock that the token is still the live one.
		return found, nil
	}
	reused := false
	err := s.change(func(st *state) error {
		for id, g := range st.Grants {
			switch {
			case g.Refresh == h:
				found = *g
				return nil
			case slices.Contains(g.Spent, h):
				// Written: the revocation must outlive this answer.
				delete(st.Grants, id)
				reused = true
				return nil
			}
		}
		return errors.New("unknown refresh token")
	})
	switch {
	case err != nil:
		return Grant{}, err
	case reused:
		return Grant{}, ErrReused
	}
	return found, nil
}

// Rotate replaces grant id's refresh token old with a new one, which it
// returns; old can never be used again.
func (s *Store) Rotate(id, old string) (string, error) {
	refresh := newSecret()
	return refresh, s.change(func(st *state) error {
		g := st.Grants[id]
		if g == nil || g.Refresh != hash(old) {
			return errors.New("the grant was revoked, or its refresh token already replaced")
		}
		g.Spent = append(g.Spent, g.Refresh)
		if len(g.Spent) > 64 {
			g.Spent = g.Spent[len(g.Spent)-64:]
		}
		g.Refresh, g.Used = hash(refresh), time.Now().UTC()
		return nil
	})
}

// Active reports whether grant id stands (not revoked).
func (s *Store) Active(id string) bool {
	var ok bool
	_ = s.read(func(st *state) { ok = st.Grants[id] != nil })
	return ok
}

// Grants are the grants that stand, oldest first, with their clients'
// names.
func (s *Store) Grants() ([]Grant, map[string]string, error) {
	var out []Grant
	names := map[string]string{}
	err := s.read(func(st *state) {
		for _, g := range st.Grants {
			out = append(out, *g)
		}
		for id, c := range st.Clients {
			names[id] = c.Name
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, names, err
}

// Revoke ends grant id (a prefix of it, if unique): its refresh token and
// every access token it gave are refused from now on.
func (s *Store) Revoke(id string) (Grant, error) {
	var gone Grant
	return gone, s.change(func(st *state) error {
		var match []string
		for gid := range st.Grants {
			if len(id) >= 6 && len(gid) >= len(id) && gid[:len(id)] == id {
				match = append(match, gid)
			}
		}
		switch len(match) {
		case 0:
			return fmt.Errorf("no grant %q (obsidian-mcp oauth grants lists them)", id)
		case 1:
			gone = *st.Grants[match[0]]
			delete(st.Grants, match[0])
			return nil
		}
		return fmt.Errorf("%q names %d grants: give more of its id", id, len(match))
	})
}

// signingKey is the server's key and its id.
func (s *Store) signingKey() (*rsa.PrivateKey, string) {
	var id string
	_ = s.read(func(st *state) { id = st.KeyID })
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key, id
}

// Peek reads the store in file without changing it (doctor): whether the
// owner set a passphrase, and how many grants stand. A missing file is
// ErrNotExist.
func Peek(file string) (passphrase bool, grants int, err error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return false, 0, err
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return false, 0, fmt.Errorf("%s is damaged: %v", file, err)
	}
	return st.Passphrase != "", len(st.Grants), nil
}
