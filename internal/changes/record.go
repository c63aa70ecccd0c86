// Package changes is the change record: every change the server makes to
// a vault, kept outside the vault before it lands, so that a person can
// see what was changed and put it back. A tool call that writes begins a
// change (Begin); the engine, below every tool and face, adds a part for
// each file it is about to write (Pending.Part), with the bytes the file
// had, and says when the write landed; the call's end keeps the change
// when any part landed.
//
// A record is a folder of its own for each vault (named by a hash of the
// vault's path) under a base folder in the user's state folder: one file
// per change, and the bytes of files before they changed, stored once by
// their SHA-256, compressed where that pays. Every file is reached through
// an os.Root on that folder, which must be a real folder (a symlink is
// refused); folders are 0700 and files 0600. Processes share it: a change
// is a file of its own, written whole (a temporary file renamed), so no
// two writers meet. A change whose process died between its record and
// its write is settled at the next Open by looking at the files.
package changes

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	// mu orders this process's writes of the record (pruning among them).
	mu sync.Mutex
	// Pruning reads every change, so it does not run at each: at Open,
	// then when the record's size as this process counts it (size: what
	// it measured when it last pruned, and what it wrote since) passes
	// MaxBytes, after pruneEvery changes (other processes write too), and
	// after an hour (for MaxAge). It prunes to nine tenths of MaxBytes,
	// so that a full record is not pruned at every change.
	size      int64
	kept      int
	lastPrune time.Time
	// seen are the changes this process has read, by id (nil: damaged).
	seenMu sync.Mutex
	seen   map[string]*note.VaultChange
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
// needed, and settles what a process that died mid-change left (vault is
// the vault's root, to look at the files).
func Open(base, vaultDir string, vault *os.Root, limits Limits) (*Record, error) {
	abs, err := filepath.Abs(vaultDir)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	r := &Record{dir: filepath.Join(base, hex.EncodeToString(sum[:8])), limits: limits, now: time.Now}
	root, err := r.root()
	if err != nil {
		return nil, fmt.Errorf("the change record %s: %w", r.dir, err)
	}
	defer root.Close()
	for _, sub := range []string{"changes", "blobs"} {
		if err := root.Mkdir(sub, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if err := plainFolder(root, sub); err != nil {
			return nil, fmt.Errorf("the change record %s: %w", filepath.Join(r.dir, sub), err)
		}
	}
	if vault != nil {
		r.settle(root, vault)
	}
	return r, nil
}

// Dir is the record's folder.
func (r *Record) Dir() string { return r.dir }

// root makes the record's folder if needed and opens it as a root; the
// folder itself must be a real folder.
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

// keepBlob stores data under its hash, compressed when that saves a
// quarter or more, unless it is there already; it returns the bytes it
// wrote.
func keepBlob(root *os.Root, data []byte, sync bool) (string, int64, error) {
	h := Hash(data)
	for _, name := range []string{h, h + ".gz"} {
		if _, err := root.Lstat("blobs/" + name); err == nil {
			return h, 0, nil
		}
	}
	name, body := h, data
	if len(data) > 512 {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		_, _ = w.Write(data)
		_ = w.Close()
		if z.Len() <= len(data)*3/4 {
			name, body = h+".gz", z.Bytes()
		}
	}
	if err := writeWhole(root, "blobs/"+name, body, sync); err != nil {
		// Another process may have stored the same bytes at once: on
		// Windows the second rename onto the name is then refused
		// (access denied). A blob's name is its content's hash, and a
		// name is only ever given whole, so the one there will do.
		if _, serr := root.Lstat("blobs/" + name); serr == nil {
			return h, 0, nil
		}
		return h, 0, err
	}
	return h, int64(len(body)), nil
}

// Blob is the bytes stored under hash h.
func (r *Record) Blob(h string) ([]byte, error) {
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("%q is no content hash", h)
	}
	root, err := r.root()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if data, err := root.ReadFile("blobs/" + h); err == nil {
		return data, nil
	}
	f, err := root.Open("blobs/" + h + ".gz")
	if err != nil {
		return nil, fmt.Errorf("the bytes %s are not in the change record (forgotten, or removed by hand)", h[:12])
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("the bytes %s in the change record are damaged: %v", h[:12], err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("the bytes %s in the change record are damaged: %v", h[:12], err)
	}
	if Hash(data) != h {
		return nil, fmt.Errorf("the bytes %s in the change record are damaged (their hash differs)", h[:12])
	}
	return data, nil
}

// writeWhole writes name whole: a temporary file beside it, renamed over
// it; synced to disk first when sync (the record's own files are not:
// docs/changes.md says why).
func writeWhole(root *os.Root, name string, data []byte, sync bool) error {
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := name + ".tmp-" + hex.EncodeToString(b[:])
	f, err := root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	var serr error
	if sync {
		serr = f.Sync()
	}
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return nil
}

// stored is a change as its file holds it: the parts with their state.
type stored struct {
	note.VaultChange
	// Pending are the parts recorded whose write is not known to have
	// landed (a process that died between the two).
	Pending []note.ChangePart `json:"pending,omitempty"`
}

func (r *Record) save(root *os.Root, s *stored, sync bool) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return writeWhole(root, "changes/"+s.ID+".json", data, sync)
}

// load reads one change's file.
func load(root *os.Root, id string) (*stored, error) {
	data, err := root.ReadFile("changes/" + id + ".json")
	if err != nil {
		return nil, err
	}
	var s stored
	if err := json.Unmarshal(data, &s); err != nil || s.ID != id {
		return nil, fmt.Errorf("the change record's entry %s is damaged", id)
	}
	return &s, nil
}

// ids are the record's changes, oldest first.
func ids(root *os.Root) ([]string, error) {
	f, err := root.Open("changes")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if id, ok := strings.CutSuffix(n, ".json"); ok && validID(id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// validID reports an id as newID makes them, so that no id names a path.
func validID(id string) bool {
	if len(id) != len("20060102T150405.000000Z-abcdef") {
		return false
	}
	return strings.Trim(id, "0123456789TZabcdef.-") == ""
}
