package native

import (
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

// racyWindow is how long after a folder's modification time its listing
// is not trusted: a change within the same timestamp tick (two seconds on
// FAT) would leave the time unchanged. Git's index uses the same idea.
const racyWindow = 2 * time.Second

// listing caches the vault's file names folder by folder. A folder is read
// again only when its modification time changed (an entry was added,
// removed or renamed in it) or is too recent to trust, so listing a
// 10,000-note vault costs one stat per folder instead of a full walk.
// Contents of files are never cached.
type listing struct {
	mu   sync.Mutex
	dirs map[string]*folder
	all  []string // every file, sorted; rebuilt when a folder changes
	// folders is every folder but the root, sorted, rebuilt with all.
	folders []string
	// byBase maps each lower-case file name to the files that have it,
	// so a name resolves without scanning the whole list.
	byBase map[string][]string
	// policy is the one all, folders and byBase were filtered by.
	policy *policy.Policy
	walks  int // Files calls, each a walk of the folders
}

type folder struct {
	mod, read time.Time
	files     []string // vault paths of the files directly in it
	subdirs   []string // vault paths of its folders
	// links maps the files that are symlinks to the vault paths of the
	// files they lead to.
	links map[string]string
	// temps are the temporary files of atomic writes in it (see
	// removeTemps).
	temps []string
}

// Files lists the vault's files as Obsidian sees them: every file under the
// root, sorted, with hidden files and folders (a name starting with '.')
// left out, and those the policy hides. Symlinks count when they lead to a
// file inside the vault. The slice is shared: callers must not modify it.
func (v *Engine) Files() ([]string, error) {
	pol := v.Policy()
	l := &v.list
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dirs == nil {
		l.dirs = map[string]*folder{}
	}
	l.walks++
	sc := &scan{v: v, l: l, seen: make(map[string]bool, len(l.dirs))}
	if err := sc.visit("."); err != nil {
		l.dirs, l.all, l.byBase = nil, nil, nil
		return nil, FileError(err, ".")
	}
	for dir := range l.dirs {
		if !sc.seen[dir] {
			delete(l.dirs, dir)
			sc.changed, sc.d.full = true, true
		}
	}
	switch {
	case sc.changed && l.all != nil && l.policy == pol && !pol.Hides() && sc.d.small():
		// One note added at 100,000 notes: a patched copy of the list
		// (about 1 ms) instead of a new one sorted (60–90 ms).
		l.patch(sc.d)
	case sc.changed || l.all == nil || l.policy != pol:
		l.rebuild(pol)
	}
	return l.all, nil
}

// FilesUnchanged implements vaultindex.QuietListing: the listing the
// last Files call made, when the policy it was made under is still in
// force. The index asks only when the watcher has just said, completely,
// that no file or folder came, went or changed since the Changed call
// that preceded that Files call.
func (v *Engine) FilesUnchanged() ([]string, bool) {
	pol := v.Policy()
	l := &v.list
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.all == nil || l.policy != pol {
		return nil, false
	}
	return l.all, true
}

// scan is one pass of Files over the folders: the folders it saw, and
// whether (and how) the listing changed.
type scan struct {
	v       *Engine
	l       *listing
	seen    map[string]bool
	changed bool
	// d: a note added or removed in a folder whose subfolders stayed is
	// patched into the listing; anything else lists it anew.
	d delta
}

// visit brings dir and the folders below it up to date: a folder is read
// again when its modification time changed or is too recent to trust.
func (sc *scan) visit(dir string) error {
	sc.seen[dir] = true
	fi, err := sc.v.root.Stat(dir)
	if err != nil || !fi.IsDir() {
		if dir == "." {
			if err == nil {
				err = &fs.PathError{Op: "list", Path: sc.v.dir, Err: fs.ErrInvalid}
			}
			return err
		}
		return nil // gone since its parent was read, or unreadable
	}
	f := sc.l.dirs[dir]
	if f == nil || !fi.ModTime().Equal(f.mod) || f.read.Sub(f.mod) < racyWindow {
		fresh, err := sc.v.readFolder(dir, fi.ModTime())
		if err != nil {
			if dir == "." {
				return err
			}
			fresh = &folder{mod: fi.ModTime(), read: time.Now()} // unreadable: no files, as in Obsidian
		}
		if f == nil || !slices.Equal(f.files, fresh.files) || !slices.Equal(f.subdirs, fresh.subdirs) {
			sc.changed = true
			if f == nil || !slices.Equal(f.subdirs, fresh.subdirs) {
				sc.d.full = true
			} else {
				sc.d.between(f.files, fresh.files)
			}
		}
		f = fresh
		sc.l.dirs[dir] = f
	}
	for _, sub := range f.subdirs {
		if err := sc.visit(sub); err != nil {
			return err
		}
	}
	return nil
}

// patch applies d, files added and removed, to the listing in place.
func (l *listing) patch(d delta) {
	l.all = d.patch(l.all)
	for _, f := range d.removed {
		b := strings.ToLower(path.Base(f))
		if i, ok := slices.BinarySearch(l.byBase[b], f); ok {
			if rest := slices.Delete(slices.Clone(l.byBase[b]), i, i+1); len(rest) > 0 {
				l.byBase[b] = rest
			} else {
				delete(l.byBase, b)
			}
		}
	}
	for _, f := range d.added {
		b := strings.ToLower(path.Base(f))
		if i, ok := slices.BinarySearch(l.byBase[b], f); !ok {
			l.byBase[b] = slices.Insert(slices.Clip(l.byBase[b]), i, f)
		}
	}
}

// rebuild makes the listing anew from its folders, filtered by pol.
func (l *listing) rebuild(pol *policy.Policy) {
	l.policy = pol
	all := make([]string, 0, len(l.all)+16)
	for _, f := range l.dirs {
		all = append(all, f.files...)
	}
	all = pol.Files(all)
	if pol.Hides() {
		// A symlink is hidden when the file it leads to is.
		all = slices.DeleteFunc(all, func(f string) bool {
			real, ok := l.dirs[path.Dir(f)].linkTarget(f)
			return ok && pol.Hidden(real)
		})
	}
	sort.Strings(all)
	l.all = all
	folders := make([]string, 0, len(l.dirs))
	for dir := range l.dirs {
		if dir != "." {
			folders = append(folders, dir)
		}
	}
	sort.Strings(folders)
	l.folders = pol.Folders(folders, all)
	l.byBase = make(map[string][]string, len(all))
	for _, f := range all {
		b := strings.ToLower(path.Base(f))
		l.byBase[b] = append(l.byBase[b], f)
	}
}

// delta is what changed in the listing's folders since the last Files call,
// when only files came and went.
type delta struct {
	added, removed []string
	full           bool // a folder came, went, or changed its subfolders
}

// maxDelta is the most files a listing is patched with; past it, it is
// made anew.
const maxDelta = 1000

func (d *delta) small() bool { return !d.full && len(d.added)+len(d.removed) <= maxDelta }

// between adds what differs between a folder's files before and now.
func (d *delta) between(before, now []string) {
	was := make(map[string]bool, len(before))
	for _, f := range before {
		was[f] = true
	}
	for _, f := range now {
		if !was[f] {
			d.added = append(d.added, f)
		}
		delete(was, f)
	}
	for f := range was {
		d.removed = append(d.removed, f)
	}
}

// patch returns all, sorted, without d's removed files and with its added
// ones, in a new slice: callers may hold the old one.
func (d *delta) patch(all []string) []string {
	slices.Sort(d.added)
	gone := make(map[string]bool, len(d.removed))
	for _, f := range d.removed {
		gone[f] = true
	}
	out := make([]string, 0, len(all)+len(d.added))
	add := d.added
	for _, f := range all {
		for len(add) > 0 && add[0] < f {
			out = append(out, add[0])
			add = add[1:]
		}
		if !gone[f] {
			out = append(out, f)
		}
	}
	return append(out, add...)
}

// Folders lists the vault's folders as of the last Files call, sorted,
// without the root. The slice is shared: callers must not modify it.
func (v *Engine) Folders() []string {
	v.list.mu.Lock()
	defer v.list.mu.Unlock()
	return v.list.folders
}

// candidates returns the files a wikilink-style name could designate: those
// whose lower-case file name is the name's, with or without .md. It is
// all that note.Resolve needs to see.
func (v *Engine) candidates(name string) ([]string, error) {
	if _, err := v.Files(); err != nil {
		return nil, err
	}
	v.list.mu.Lock()
	defer v.list.mu.Unlock()
	b := strings.ToLower(path.Base(name))
	return append(slices.Clip(v.list.byBase[b]), v.list.byBase[b+note.MarkdownExt]...), nil
}

// readFolder lists one folder; mod is its modification time before reading.
func (v *Engine) readFolder(dir string, mod time.Time) (*folder, error) {
	read := time.Now()
	d, err := v.root.Open(dir)
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	_ = d.Close()
	if err != nil {
		return nil, err
	}
	f := &folder{mod: mod, read: read}
	for _, e := range entries {
		name := e.Name()
		p := name
		if dir != "." {
			p = dir + "/" + name
		}
		if strings.HasPrefix(name, ".") {
			if e.Type().IsRegular() && tempName.MatchString(name) {
				f.temps = append(f.temps, p)
			}
			continue
		}
		switch t := e.Type(); {
		case t.IsDir():
			f.subdirs = append(f.subdirs, p)
		case t.IsRegular():
			f.files = append(f.files, p)
		case t&fs.ModeSymlink != 0:
			// Followed only to files inside the vault, outside its hidden
			// folders; os.Root refuses the others. Symlinked folders are
			// not walked (no cycles).
			if fi, err := v.root.Stat(p); err == nil && fi.Mode().IsRegular() {
				real := v.RealPath(p)
				if note.InDotFolder(real) {
					continue
				}
				f.files = append(f.files, p)
				if f.links == nil {
					f.links = map[string]string{}
				}
				f.links[p] = real
			}
		}
	}
	sort.Strings(f.files)
	sort.Strings(f.subdirs)
	return f, nil
}

// linkTarget is where the symlink file p of this folder leads, when it is
// one.
func (f *folder) linkTarget(p string) (string, bool) {
	if f == nil {
		return "", false
	}
	real, ok := f.links[p]
	return real, ok
}

// maxConfig bounds a settings file of Obsidian or a plugin read from
// .obsidian, and a template: read whole, so a huge one is refused.
const maxConfig = 16 << 20

// readSmall reads name inside the vault, following links that stay in it,
// refusing anything but a regular file (a FIFO would block the read) and
// a file over limit bytes.
func (v *Engine) readSmall(name string, limit int64) ([]byte, error) {
	return readCapped(v.root, name, 0, limit)
}
