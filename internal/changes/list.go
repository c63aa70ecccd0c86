package changes

import (
	"errors"
	"fmt"
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.refresh(); err != nil {
		return Listing{}, err
	}
	out := Listing{Changes: []note.VaultChange{}, Damaged: r.damaged}
	// Newest first, from memory: only the changes chosen are copied.
	for _, m := range slices.Backward(r.made()) {
		if f.Before != "" && m.ID >= f.Before {
			continue
		}
		c := f.visible(*m)
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
// are damaged. Each segment's log is read once by this process, and then
// only what it gained since.
func (r *Record) all() ([]note.VaultChange, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.refresh(); err != nil {
		return nil, 0, err
	}
	made := r.made()
	out := make([]note.VaultChange, len(made))
	for i, c := range made {
		out[i] = *c
	}
	return out, r.damaged, nil
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
		if partlyHidden(c, hidden) {
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
		if partlyHidden(c, hidden) {
			return nil, fmt.Errorf("%s: %w", c.ID, ErrHiddenParts)
		}
		out = append(out, c)
	}
	return out, nil
}

// ErrHiddenParts is a change that touched notes the policy hides: it is
// not undone in part.
var ErrHiddenParts = errors.New("it touched notes this server may not show, so it cannot be undone from here")

// partlyHidden is whether hidden hides any part of c.
func partlyHidden(c note.VaultChange, hidden func(string) bool) bool {
	return len(Filter{Hidden: hidden}.visible(c).Parts) != len(c.Parts)
}

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
	r.mu.Lock()
	err := r.refresh()
	var found *note.VaultChange
	if e := r.entries[id]; e != nil && e.c != nil {
		found = e.c
	}
	r.mu.Unlock()
	switch {
	case err != nil:
		return note.VaultChange{}, err
	case found == nil:
		return note.VaultChange{}, fmt.Errorf("%s: %w (forgotten after the record's limits, or never made)", id, ErrNoChange)
	}
	c := Filter{Hidden: hidden}.visible(*found)
	if len(c.Parts) == 0 {
		return note.VaultChange{}, fmt.Errorf("%s: %w (forgotten after the record's limits, or never made)", id, ErrNoChange)
	}
	return c, nil
}

// prune forgets whole segments, oldest first (by their newest change):
// those whose newest change is older than MaxAge, then more while the
// record is larger than nine tenths of MaxBytes. A segment whose process
// is alive (its lock held), this process's own among them, is kept. r.mu
// is held.
func (r *Record) prune() {
	if err := r.refresh(); err != nil {
		return
	}
	segs := make([]*segment, 0, len(r.segs))
	var size int64
	for _, s := range r.segs {
		size += s.size
		segs = append(segs, s)
	}
	slices.SortFunc(segs, func(a, b *segment) int {
		if c := a.newest.Compare(b.newest); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	oldest := r.now().Add(-r.limits.MaxAge)
	for _, s := range segs {
		tooOld := r.limits.MaxAge > 0 && s.newest.Before(oldest)
		tooBig := r.limits.MaxBytes > 0 && size > r.limits.MaxBytes*9/10
		if !tooOld && !tooBig {
			break
		}
		if r.own != nil && s.name == r.own.name || r.pendingIn(s.name) {
			continue
		}
		if r.forget(s) {
			size -= s.size
		}
	}
	r.size, r.kept, r.lastPrune = size, 0, r.now()
}

// forget removes a dead segment's files; it is kept when its process is
// alive. r.mu is held.
func (r *Record) forget(s *segment) bool {
	lock, dead := r.deadLock(s.name)
	if !dead {
		return false
	}
	_ = r.rh.Remove(logDir + "/" + s.name + ".log")
	_ = r.rh.Remove(logDir + "/" + s.name + ".dat")
	_ = lock.Close()
	_ = r.rh.Remove(logDir + "/" + s.name + ".lock")
	r.dropSegment(s.name)
	return true
}
