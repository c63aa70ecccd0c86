package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// MinKeyLength is the shortest API key accepted: 16 characters, about 64
// bits of a hex key, beyond a network guess.
const MinKeyLength = 16

// Key is an HTTP face's API key, the same for serve and the gateway: read
// from a file's first line or an environment variable, sent by clients in
// any of the headers Presented reads, compared in constant time.
type Key struct {
	sum [sha256.Size]byte
	set bool
}

// NewKey checks a key as the user gave it (surrounding white space is
// not part of it).
func NewKey(key string) (Key, error) {
	key = strings.TrimSpace(key)
	switch {
	case key == "":
		return Key{}, errors.New("holds no key")
	case len(key) < MinKeyLength:
		return Key{}, fmt.Errorf("the key is too short: use at least %d characters (e.g. openssl rand -hex 32)", MinKeyLength)
	case strings.ContainsAny(key, " \t\r\n"):
		return Key{}, errors.New("the key must not contain white space")
	}
	return Key{sum: sha256.Sum256([]byte(key)), set: true}, nil
}

// ReadKeyFile is the key on the first line of file.
func ReadKeyFile(file string) (Key, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Key{}, fmt.Errorf("cannot be read: %v", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return NewKey(line)
}

// SecretFile is the secret on the first line of file, trimmed: a key or
// a client secret kept out of the command line.
func SecretFile(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("cannot be read: %v", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line), nil
}

// Set reports whether there is a key to ask for.
func (k Key) Set() bool { return k.set }

// Allows reports whether r carries the key (always, when none is set), and
// whether it carried any key at all, so that a refusal can say which of
// "missing" and "wrong" it is. Both sides are hashed before the
// constant-time compare, so that not even the key's length leaks.
func (k Key) Allows(r *http.Request) (ok, presented bool) {
	if !k.set {
		return true, false
	}
	got, presented := bearer.Presented(r)
	if !presented {
		return false, false
	}
	sum := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(sum[:], k.sum[:]) == 1, true
}

// KeyHelp is how to send the key, for a refusal's details.
const KeyHelp = "Send it as Authorization: Bearer <key>, X-Api-Key or X-ObsiScripta-Api-Key."

// RefuseKey answers a request without the right key: 401 with a
// WWW-Authenticate challenge, saying whether the key was missing or wrong.
func RefuseKey(w http.ResponseWriter, presented bool, realm string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
	msg := "this server needs its API key"
	if presented {
		msg = "the API key is wrong"
	}
	mcphttp.Refuse(w, http.StatusUnauthorized, "UNAUTHORIZED", msg, KeyHelp)
}
