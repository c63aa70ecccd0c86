package authserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
)

// StoreFile is file, or oauth.json in obsidian-mcp's folder of the user's
// configuration directory (--oauth-store's default).
func StoreFile(file string) (string, error) {
	return settings.InConfigDir(file, "oauth.json", "the OAuth store", "--oauth-store")
}

// OpenStoreFile opens the store at StoreFile(file).
func OpenStoreFile(file string) (*Store, error) {
	file, err := StoreFile(file)
	if err != nil {
		return nil, err
	}
	return OpenStore(file)
}

// Start is the built-in authorization server at issuer, for resources,
// its grants in the store file; setting names the option that asked for
// it, for the error when no passphrase is set (no client could then be
// approved).
func Start(file, setting, issuer string, resources []string, logger *slog.Logger) (*Server, error) {
	store, err := OpenStoreFile(file)
	if err != nil {
		return nil, err
	}
	if !store.HasPassphrase() {
		return nil, fmt.Errorf("%s: no passphrase is set, so no client could be approved: run `obsidian-mcp oauth passphrase` first", setting)
	}
	// The provider logs through slog's default logger (its WithLogger
	// option does nothing in zitadel/oidc v3.52): the program makes it
	// its own (internal/app), so that those words come on stderr in the
	// same form and at the same level.
	return New(Options{Store: store, Issuer: issuer, Resources: resources, Logger: logger})
}

// Doctor says whether the built-in server would start on the store file:
// whether a passphrase is set, and how many clients are approved. what
// names the setting in the line. It changes nothing.
func Doctor(what, file string) (string, bool) {
	file, err := StoreFile(file)
	if err != nil {
		return fmt.Sprintf("%s: would not start: %v", what, err), false
	}
	pass, grants, err := Peek(file)
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && !pass:
		return fmt.Sprintf("%s: would not start: no passphrase is set in %s; run `obsidian-mcp oauth passphrase`", what, file), false
	case err != nil:
		return fmt.Sprintf("%s: would not start: %v", what, err), false
	}
	return fmt.Sprintf("%s: the built-in authorization server; store %s, passphrase set, %d approved client(s) (obsidian-mcp oauth grants)", what, file, grants), true
}

// HandlerOf and PathsOf are s's, or none when there is no built-in server.
func HandlerOf(s *Server) http.Handler {
	if s == nil {
		return nil
	}
	return s.Handler()
}

// PathsOf: see HandlerOf.
func PathsOf(s *Server) []string {
	if s == nil {
		return nil
	}
	return s.Paths()
}
