package native

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// A journal entry lives in the vault, where a sync client can bring one
// from another machine and anyone who can write the vault can plant one.
// Recovery replays only entries signed with a secret that never enters
// the vault: a key kept in the user's configuration folder, made by the
// first server that journals. An entry signed with another key (another
// machine's or user's, or none) is left alone and named in the log.

// WithJournalKey sets the file holding the key journal entries are signed
// with (DefaultJournalKey when not given).
func WithJournalKey(path string) Option { return func(o *options) { o.keyFile = path } }

// DefaultJournalKey is the key file in the user's configuration folder.
func DefaultJournalKey() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "obsidian-mcp", "journal.key"), nil
}

// signer signs and checks journal entries.
type signer struct {
	file string
	once sync.Once
	key  []byte
}

// keyOf loads the key, making it if there is none. A key that cannot be
// kept (no configuration folder, a read-only home) lives as long as this
// process: its own entries are still completed by the next process of
// this user only if the file can be kept, so such entries are left alone.
func (s *signer) keyOf() []byte {
	s.once.Do(func() {
		if key, err := loadKey(s.file); err == nil {
			s.key = key
			return
		}
		s.key = make([]byte, 32)
		_, _ = rand.Read(s.key)
	})
	return s.key
}

const keySize = 32

// loadKey reads the key at path, or makes it (only this user may read it).
func loadKey(path string) ([]byte, error) {
	if path == "" {
		p, err := DefaultJournalKey()
		if err != nil {
			return nil, err
		}
		path = p
	}
	for range 2 {
		f, err := os.OpenFile(path, os.O_RDONLY|noFollow|nonBlock, 0)
		if err == nil {
			key, err := readKey(f)
			_ = f.Close()
			return key, err
		}
		if !os.IsNotExist(err) {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		key := make([]byte, keySize)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if err != nil {
			continue // made by another process meanwhile: read it
		}
		_, err = f.Write(key)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return key, err
	}
	return nil, fs.ErrExist
}

func readKey(f *os.File) ([]byte, error) {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fs.ErrInvalid
	}
	key, err := io.ReadAll(io.LimitReader(f, keySize+1))
	if err == nil && len(key) != keySize {
		err = fs.ErrInvalid // still being written, or not ours
	}
	return key, err
}

// sign returns in's signature: an HMAC-SHA256 of its JSON without one.
func (s *signer) sign(in intent) string {
	in.MAC = ""
	data, _ := json.Marshal(in)
	m := hmac.New(sha256.New, s.keyOf())
	m.Write(data)
	return hex.EncodeToString(m.Sum(nil))
}

// verify reports whether in carries this user's signature.
func (s *signer) verify(in intent) bool {
	want, err := hex.DecodeString(in.MAC)
	if err != nil {
		return false
	}
	got, _ := hex.DecodeString(s.sign(in))
	return hmac.Equal(got, want)
}

// mark is this user's mark for what: an HMAC-SHA256 of it, in hex. A
// folder of the state folder holds one (statedir.MakeOwned) so that only
// this user's servers on this machine ever remove it.
func (s *signer) mark(what string) string {
	m := hmac.New(sha256.New, s.keyOf())
	m.Write([]byte("obsidian-mcp mark\x00" + what))
	return hex.EncodeToString(m.Sum(nil))
}
