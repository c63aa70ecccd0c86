package changes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Filter chooses changes: each field set narrows the list.
type Filter struct {
	// Path keeps changes that touched this note; Folder those that touched
	// a file under it.
	Path, Folder string
	Tool, Client string
	Since, Until time.Time
	// Limit bounds the answer (0: 50); Before continues a list after the
	// change of that id (the next page).
	Limit  int
	Before string
	// Hidden, when set, hides the parts on paths it names (the folder
	// policy's hidden notes): a change shows its other parts, and one
	// with none is not listed.
	Hidden func(path string) bool
}

// Listing is a page of changes, newest first.
type Listing struct {
	Changes []note.VaultChange
	// More is the id to pass as Filter.Before for the next page; "" at
	// the end.
	More string
	// Damaged counts entries that could not be read (skipped).
	Damaged int
}

// List answers the changes f chooses, newest first. Changes being made
// (parts still pending) are not listed.
func (r *Record) List(f Filter) (Listing, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	if f.Before != "" && !validID(f.Before) {
		return Listing{}, fmt.Errorf("%q is no change id", f.Before)
	}
	all, damaged, err := r.all()
	if err != nil {
		return Listing{}, err
	}
	out := Listing{Changes: []note.VaultChange{}, Damaged: damaged}
	for _, c := range slices.Backward(all) {
		if f.Before != "" && c.ID >= f.Before {
			continue
		}
		c = f.visible(c)
		if len(c.Parts) == 0 || !f.chooses(c) {
			continue
		}
		if len(out.Changes) == f.Limit {
			out.More = out.Changes[len(out.Changes)-1].ID
			break
		}
		out.Changes = append(out.Changes, c)
	}
	return out, nil
}

// all are the record's changes made, oldest first, and how many entries
// are damaged. A change's file does not change once it is made, so each
// is read once by this process and kept (r.seen); the folder is listed at
// each call, for the changes of other processes and those forgotten.
func (r *Record) all() ([]note.VaultChange, int, error) {
	root, err := r.root()
	if err != nil {
		return nil, 0, err
	}
	defer root.Close()
	list, err := ids(root)
	if err != nil {
		return nil, 0, err
	}
	r.seenMu.Lock()
	defer r.seenMu.Unlock()
	if r.seen == nil {
		r.seen = map[string]*note.VaultChange{}
	}
	out := make([]note.VaultChange, 0, len(list))
	damaged := 0
	keep := make(map[string]*note.VaultChange, len(list))
	for _, id := range list {
		c, ok := r.seen[id]
		if !ok {
			s, err := load(root, id)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue
			case err == nil && len(s.Pending) > 0:
				continue // being made: read again next time
			case err == nil:
				c = &s.VaultChange
			}
			// A damaged entry (c nil) is not read again either.
		}
		keep[id] = c
		if c == nil {
			damaged++
			continue
		}
		out = append(out, *c)
	}
	r.seen = keep
	return out, damaged, nil
}

// inEffect are the changes not undone: an undo reverts the changes it
// names unless it is undone in turn (a redo).
func inEffect(all []note.VaultChange) func(id string) bool {
	undos := map[string][]string{}
	for _, c := range all {
		if c.Undoes != "" {
			for _, id := range strings.Split(c.Undoes, ",") {
				undos[id] = append(undos[id], c.ID)
			}
		}
	}
	memo := map[string]bool{}
	var effect func(id string) bool
	effect = func(id string) bool {
		if v, ok := memo[id]; ok {
			return v
		}
		memo[id] = true // an undo names only older changes: no cycle
		for _, u := range undos[id] {
			if effect(u) {
				memo[id] = false
				break
			}
		}
		return memo[id]
	}
	return effect
}

// ErrUndone is a change an undo in effect reverted already.
var ErrUndone = errors.New("it was undone already")

// ToUndo are the changes an undo of id reverts (that one), or with id
// "" the last n changes of client still in effect (undos left out: an
// undo is undone by its id, as a redo), newest first; hidden as in Get.
func (r *Record) ToUndo(id, client string, n int, hidden func(string) bool) ([]note.VaultChange, error) {
	all, _, err := r.all()
	if err != nil {
		return nil, err
	}
	effect := inEffect(all)
	if id != "" {
		c, err := r.Get(id, nil)
		if err != nil {
			return nil, err
		}
		if !effect(id) {
			by := ""
			for _, u := range slices.Backward(all) {
				if slices.Contains(strings.Split(u.Undoes, ","), id) && effect(u.ID) {
					by = u.ID
					break
				}
			}
			return nil, fmt.Errorf("%s: %w by %s (undo %s to redo it)", id, ErrUndone, by, by)
		}
		if v := (Filter{Hidden: hidden}).visible(c); len(v.Parts) != len(c.Parts) {
			return nil, fmt.Errorf("%s: %w", id, ErrHiddenParts)
		}
		return []note.VaultChange{c}, nil
	}
	var out []note.VaultChange
	for _, c := range slices.Backward(all) {
		if len(out) == n {
			break
		}
		if !strings.EqualFold(c.Client, client) || c.Undoes != "" || !effect(c.ID) {
			continue
		}
		if v := (Filter{Hidden: hidden}).visible(c); len(v.Parts) != len(c.Parts) {
			return nil, fmt.Errorf("%s: %w", c.ID, ErrHiddenParts)
		}
		out = append(out, c)
	}
	return out, nil
}

// ErrHiddenParts is a change that touched notes the policy hides: it is
// not undone in part.
var ErrHiddenParts = errors.New("it touched notes this server may not show, so it cannot be undone from here")

func (f Filter) chooses(c note.VaultChange) bool {
	switch {
	case f.Tool != "" && c.Tool != f.Tool,
		f.Client != "" && !strings.EqualFold(c.Client, f.Client),
		!f.Since.IsZero() && c.Time.Before(f.Since),
		!f.Until.IsZero() && c.Time.After(f.Until):
		return false
	}
	if f.Path == "" && f.Folder == "" {
		return true
	}
	folder := strings.TrimSuffix(f.Folder, "/") + "/"
	return slices.ContainsFunc(c.Paths(), func(p string) bool {
		return f.Path != "" && strings.EqualFold(p, f.Path) || f.Folder != "" && strings.HasPrefix(strings.ToLower(p), strings.ToLower(folder))
	})
}

// visible is c less the parts f hides.
func (f Filter) visible(c note.VaultChange) note.VaultChange {
	if f.Hidden == nil {
		return c
	}
	parts := []note.ChangePart{}
	for _, p := range c.Parts {
		if !f.Hidden(p.Path) && (p.To == "" || !f.Hidden(p.To)) {
			parts = append(parts, p)
		}
	}
	c.Parts = parts
	return c
}

// ErrNoChange is an id the record does not have.
var ErrNoChange = errors.New("no such change in the record")

// Get is the change of that id, less the parts hidden hides (nil: none);
// one whose every part is hidden is not found.
func (r *Record) Get(id string, hidden func(string) bool) (note.VaultChange, error) {
	if !validID(id) {
		return note.VaultChange{}, fmt.Errorf("%q is no change id (ids look like 20261128T175400.123456Z-a1b2c3): %w", id, ErrNoChange)
	}
	root, err := r.root()
	if err != nil {
		return note.VaultChange{}, err
	}
	defer root.Close()
	s, err := load(root, id)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && len(s.Pending) > 0:
		return note.VaultChange{}, fmt.Errorf("%s: %w (forgotten after the record's limits, or never made)", id, ErrNoChange)
	case err != nil:
		return note.VaultChange{}, err
	}
	c := Filter{Hidden: hidden}.visible(s.VaultChange)
	if len(c.Parts) == 0 {
		return note.VaultChange{}, fmt.Errorf("%s: %w (forgotten after the record's limits, or never made)", id, ErrNoChange)
	}
	return c, nil
}

// prune forgets the changes older than MaxAge, then the oldest while the
// record is larger than nine tenths of MaxBytes, then the bytes no change
// names (at once those of the changes forgotten; others after a minute,
// since a change of another process may be about to name them; and
// temporary files a process left). It reads every change once.
func (r *Record) prune(root *os.Root) {
	list, err := ids(root)
	if err != nil {
		return
	}
	type entry struct {
		size  int64
		blobs []string
	}
	entries := make([]entry, len(list))
	refs := map[string]int{}
	var size int64
	for i, id := range list {
		if fi, err := root.Lstat("changes/" + id + ".json"); err == nil {
			entries[i].size = fi.Size()
			size += fi.Size()
		}
		s, err := load(root, id)
		if err != nil {
			continue
		}
		for _, p := range append(s.Parts, s.Pending...) {
			for _, h := range []string{p.Before, p.After} {
				if h != "" {
					entries[i].blobs = append(entries[i].blobs, h)
					refs[h]++
				}
			}
		}
	}
	blobSize, blobs := r.blobs(root)
	for h, n := range blobSize {
		if refs[h] > 0 {
			size += n
		}
	}
	freed := map[string]bool{}
	forget := func(i int) {
		_ = root.Remove("changes/" + list[i] + ".json")
		size -= entries[i].size
		for _, h := range entries[i].blobs {
			if refs[h]--; refs[h] == 0 {
				freed[h] = true
				size -= blobSize[h]
			}
		}
	}
	i := 0
	if r.limits.MaxAge > 0 {
		oldest := newID(r.now().Add(-r.limits.MaxAge))
		for ; i < len(list)-1 && list[i] < oldest; i++ {
			forget(i)
		}
	}
	for ; r.limits.MaxBytes > 0 && size > r.limits.MaxBytes*9/10 && i < len(list)-1; i++ {
		forget(i)
	}
	// File times are the wall clock's, whatever r.now says.
	young, stale := time.Now().Add(-time.Minute), time.Now().Add(-time.Hour)
	for _, b := range blobs {
		switch {
		case b.temp && b.mod.Before(stale), !b.temp && refs[b.hash] == 0 && (freed[b.hash] || b.mod.Before(young)):
			_ = root.Remove("blobs/" + b.name)
		}
	}
	r.size, r.kept, r.lastPrune = size, 0, r.now()
}

type blobFile struct {
	name, hash string
	temp       bool
	mod        time.Time
}

// blobs are the record's stored bytes: each hash's size, and every file.
func (r *Record) blobs(root *os.Root) (map[string]int64, []blobFile) {
	sizes := map[string]int64{}
	f, err := root.Open("blobs")
	if err != nil {
		return sizes, nil
	}
	entries, err := f.ReadDir(-1)
	_ = f.Close()
	if err != nil {
		return sizes, nil
	}
	var out []blobFile
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		h, _, temp := strings.Cut(strings.TrimSuffix(e.Name(), ".gz"), ".tmp-")
		out = append(out, blobFile{name: e.Name(), hash: h, temp: temp, mod: info.ModTime()})
		if !temp {
			sizes[h] += info.Size()
		}
	}
	return sizes, out
}
