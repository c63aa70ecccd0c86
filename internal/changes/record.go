// Package changes is the change record: every change the server makes to
// a vault, kept outside the vault before it lands, so that a person can
// see what was changed and put it back. A tool call that writes begins a
// change (Begin); the engine, below every tool and face, adds a part for
// each file it is about to write (Pending.Part), with the bytes the file
// had, and says when the write landed; the call's end keeps the change
// when any part landed.
//
// A record is a folder of its own for each vault (named by a hash of the
// vault's path) under a base folder in the user's state folder: a log per
// process that writes (log.go says how), holding each change and the
// bytes of files before and after it, compressed where that pays. Every
// file is reached through an os.Root on that folder, which must be a real
// folder (a symlink is refused); folders are 0700 and files 0600. A
// change whose process died between its record and its write is settled
// by the next process to open the record, by looking at the files.
package changes

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Limits bound a record: changes older than MaxAge, and the oldest while
// the record is larger than MaxBytes, are forgotten (0: no bound).
type Limits struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// DefaultLimits are 30 days and 500 MB for each vault.
var DefaultLimits = Limits{MaxAge: 30 * 24 * time.Hour, MaxBytes: 500 << 20}

// Record is one vault's change record.
type Record struct {
	dir    string
	limits Limits
	now    func() time.Time
	// mu guards everything below: this process's segment and what it
	// has read of every segment.
	mu sync.Mutex
	// rh is the record's folder, opened once: every file of the record
	// is reached through it.
	rh      *os.Root
	own     *own
	segs    map[string]*segment
	entries map[string]*entry
	sorted  []*note.VaultChange // made(), kept until an entry changes
	damaged int
	// active counts the changes being made (a part recorded, not ended):
	// a new segment is started only between changes.
	active int
	// Pruning looks at every segment, so it does not run at each change:
	// at Open, then when the record's size as this process counts it
	// (size: what it measured when it last pruned, and what it wrote
	// since) passes MaxBytes, after pruneEvery changes (other processes
	// write too), and after an hour (for MaxAge). It prunes to nine
	// tenths of MaxBytes, so that a full record is not pruned at every
	// change.
	size      int64
	kept      int
	lastPrune time.Time
}

const pruneEvery = 256

// DefaultBase is the base folder of records: obsidian-mcp/changes in the
// user's state folder ($XDG_STATE_HOME, else ~/.local/state, on Linux; the
// configuration folder elsewhere, where the system has no state folder).
func DefaultBase() (string, error) {
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "openbsd" || runtime.GOOS == "netbsd" {
		if s := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(s) {
			return filepath.Join(s, "obsidian-mcp", "changes"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, ".local", "state", "obsidian-mcp", "changes"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "obsidian-mcp", "changes"), nil
}

// ErrNotAFolder is a record folder that is a symlink or a file.
var ErrNotAFolder = errors.New("not a folder (a symlink is not followed here)")

// Open opens the record of the vault at vaultDir under base, making it if
// needed, and settles what processes that died mid-change left (vault is
// the vault's root, to look at the files). Close lets it go.
func Open(base, vaultDir string, vault *os.Root, limits Limits) (*Record, error) {
	abs, err := filepath.Abs(vaultDir)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	r := &Record{dir: filepath.Join(base, hex.EncodeToString(sum[:8])), limits: limits, now: time.Now,
		segs: map[string]*segment{}, entries: map[string]*entry{}}
	root, err := r.root()
	if err != nil {
		return nil, fmt.Errorf("the change record %s: %w", r.dir, err)
	}
	r.rh = root
	if err := root.Mkdir(logDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		_ = root.Close()
		return nil, err
	}
	if err := plainFolder(root, logDir); err != nil {
		_ = root.Close()
		return nil, fmt.Errorf("the change record %s: %w", filepath.Join(r.dir, logDir), err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.refresh(); err != nil {
		_ = root.Close()
		return nil, fmt.Errorf("the change record %s: %w", r.dir, err)
	}
	if vault != nil {
		r.settle(vault)
	}
	r.prune()
	return r, nil
}

// Dir is the record's folder.
func (r *Record) Dir() string { return r.dir }

// root makes the record's folder if needed and opens it as a root (at
// Open; then kept as rh); the folder itself must be a real folder.
func (r *Record) root() (*os.Root, error) {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(r.dir); err != nil {
		return nil, err
	} else if !realFolder(fi) {
		return nil, &os.PathError{Op: "open", Path: r.dir, Err: ErrNotAFolder}
	}
	return os.OpenRoot(r.dir)
}

// plainFolder refuses a link where a folder of the record should be.
func plainFolder(root *os.Root, name string) error {
	fi, err := root.Lstat(name)
	if err != nil {
		return err
	}
	if !realFolder(fi) {
		return &os.PathError{Op: "open", Path: name, Err: ErrNotAFolder}
	}
	return nil
}

// realFolder is a folder that is no link: not a symlink, and on Windows
// not a junction either (ModeIrregular); Windows reports a link to a
// folder as a folder too.
func realFolder(fi fs.FileInfo) bool {
	return fi.IsDir() && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) == 0
}

// Hash is the SHA-256 of data, as parts name bytes.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// newID is a change's id: its time, then random letters, so that ids sort
// as the changes were made and two processes never make the same one.
func newID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(b[:])
}

// Blob is the bytes stored under hash h.
func (r *Record) Blob(h string) ([]byte, error) {
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("%q is no content hash", h)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if data, err := r.blob(h); err == nil {
		return data, nil
	}
	if err := r.refresh(); err != nil {
		return nil, err
	}
	return r.blob(h)
}

// validID reports an id as newID makes them, so that no id names a path.
func validID(id string) bool {
	if len(id) != len("20060102T150405.000000Z-abcdef") {
		return false
	}
	return strings.Trim(id, "0123456789TZabcdef.-") == ""
}
