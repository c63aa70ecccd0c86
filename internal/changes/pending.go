package changes

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Pending is a change being made: begun by a tool call, its parts added
// by the engine as it writes.
type Pending struct {
	r  *Record
	mu sync.Mutex
	// c is the change; parts are its parts as recorded, each marked
	// (landedMark, droppedOp) as its write lands or fails.
	c     note.VaultChange
	parts []note.ChangePart
	// saved is whether a part is in the log: a call that writes nothing
	// leaves nothing.
	saved bool
	// after are the bytes each part's file is given, by part, kept at
	// End with the bytes before (the next change's bytes before, most
	// often: stored once), so that a change's diff and its undo never
	// depend on the note as it is now.
	after map[int]blob
	// before are the bytes each part was recorded with, by part, until
	// End: Settle compares with them rather than hash again.
	before map[int][]byte
}

// blob is bytes with their hash, computed once.
type blob struct {
	data []byte
	hash string
}

// Begin starts a change of tool, called by client.
func (r *Record) Begin(tool, client string) *Pending {
	now := r.now()
	return &Pending{r: r, c: note.VaultChange{ID: newID(now), Time: now, Tool: tool, Client: client, Parts: []note.ChangePart{}}}
}

type pendingKey struct{}

// With carries p with ctx, for the engine's writes to find.
func With(ctx context.Context, p *Pending) context.Context {
	return context.WithValue(ctx, pendingKey{}, p)
}

// In is the change ctx's call is making, or nil: then nothing is
// recorded (a server without a record, the engine's own recovery).
func In(ctx context.Context) *Pending {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	return p
}

// A Part is one file's part of a change, recorded before its write.
type Part struct {
	p *Pending
	i int
}

// Part records, before the write, that the change will do op to path
// (to: a move's destination): before are the file's bytes now (nil for a
// file that does not exist), after the bytes it is to have (nil where it
// will have none: a delete, a move). The write must not go ahead when it
// fails: the record would not know it.
func (p *Pending) Part(op, path, to string, before, after []byte) (*Part, error) {
	if p == nil {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	part := note.ChangePart{Op: op, Path: path, To: to, Size: len(before)}
	if after != nil || op == note.PartCreate || op == note.PartEdit {
		// A file created or edited empty has bytes after too: none.
		part.After = Hash(after)
	}
	var blobs []blob
	if before != nil {
		part.Before = Hash(before)
		blobs = append(blobs, blob{before, part.Before})
	}
	head := p.c
	head.Parts = nil
	p.r.mu.Lock()
	err := p.r.write(!p.saved, blobs, event{T: "part", Change: &head, Part: &part})
	if err == nil && !p.saved {
		p.r.active++
	}
	p.r.mu.Unlock()
	if err != nil {
		return nil, p.fail(err)
	}
	p.saved = true
	p.parts = append(p.parts, part)
	i := len(p.parts) - 1
	if part.After != "" {
		p.keepAfter(i, blob{after, part.After})
	}
	if before != nil {
		if p.before == nil {
			p.before = map[int][]byte{}
		}
		p.before[i] = before
	}
	return &Part{p: p, i: i}, nil
}

func (p *Pending) fail(err error) error {
	kind := errors.Internal
	if k, ok := errors.Resource(err); ok {
		kind = k
	}
	return errors.E(kind, "the change could not be recorded, so it was not made: %v", err).WithCause(err).
		WithHint("Check the change record's folder (" + p.r.dir + "): free space, and that this user may write it; or ask the user to run the server with --changes-dir off.")
}

// Landed says the part's write landed; trash is where a delete put the
// file, when it did. Like Failed and Settle, it changes the change in
// memory: End writes it. A process that dies before leaves the part
// pending on disk, and the next Open settles it from the files.
func (pt *Part) Landed(trash string) {
	if pt == nil {
		return
	}
	p := pt.p
	p.mu.Lock()
	defer p.mu.Unlock()
	part := &p.parts[pt.i]
	part.Trash = trash
	part.Op = landedOp(part.Op)
}

// Settle says the part's write landed with these bytes before and after:
// a compare-and-swap that merged another program's save writes other
// bytes than those recorded, and the record keeps what happened.
func (pt *Part) Settle(before, after []byte) {
	if pt == nil {
		return
	}
	p := pt.p
	p.mu.Lock()
	defer p.mu.Unlock()
	part := &p.parts[pt.i]
	if !bytes.Equal(before, p.before[pt.i]) {
		// Kept at End with the bytes after.
		h := Hash(before)
		p.keepBefore(pt.i, blob{before, h})
		part.Before, part.Size = h, len(before)
	}
	if kept, ok := p.after[pt.i]; !ok || !bytes.Equal(kept.data, after) {
		part.After = Hash(after)
		p.keepAfter(pt.i, blob{after, part.After})
	}
	part.Op = landedOp(part.Op)
}

// Again notes, in memory, that the part's write is attempted again, to
// give the file these bytes after: the file changed since the part was recorded (a
// compare-and-swap reading it again). Nothing is written to disk then:
// this happens inside the attempt's window, which another program saving
// the file in place must not find held open; Settle keeps the bytes once
// the write has landed. A process killed in the instant between such a
// write and its Settle leaves the part with the bytes of the attempt
// before, and after a restart an undo of it finds the note changed since
// (its bytes after are not those recorded) and goes by lines, or refuses.
func (pt *Part) Again(after []byte) {
	if pt == nil {
		return
	}
	p := pt.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parts[pt.i].After = Hash(after)
	p.keepAfter(pt.i, blob{after, p.parts[pt.i].After})
}

// keepAfter holds the bytes part i is to have, for End.
func (p *Pending) keepAfter(i int, after blob) {
	if after.data == nil {
		after.data = []byte{}
	}
	if p.after == nil {
		p.after = map[int]blob{}
	}
	p.after[i] = after
}

// keepBefore holds bytes a part found before it, other than those
// recorded (a compare-and-swap that merged another program's save), for
// End; they are kept under a key of their own beside the bytes after.
func (p *Pending) keepBefore(i int, before blob) {
	p.keepAfter(-1-i, before)
}

// Failed says the part's write did not land: the part is dropped.
func (pt *Part) Failed() {
	if pt == nil {
		return
	}
	p := pt.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parts[pt.i].Op = droppedOp
}

// Done is Landed("") when err is nil, else Failed.
func (pt *Part) Done(err error) {
	if err != nil {
		pt.Failed()
	} else {
		pt.Landed("")
	}
}

// A part's Op is marked while the change is made: landed parts move to
// Parts at End, dropped ones go.
const (
	landedMark = "landed:"
	droppedOp  = "dropped"
)

func landedOp(op string) string { return landedMark + op }

// End closes the change: its landed parts kept in order, a change with
// none forgotten. It returns the change as kept (no ID when none was).
func (p *Pending) End() note.VaultChange {
	if p == nil {
		return note.VaultChange{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var keep []blob
	for i, part := range p.parts {
		if op, ok := cutLanded(part.Op); ok {
			part.Op = op
			p.c.Parts = append(p.c.Parts, part)
			// Kept beside each hash that names them (Part, Again, Settle).
			for _, k := range []int{-1 - i, i} {
				if data, ok := p.after[k]; ok {
					keep = append(keep, data)
				}
			}
		}
	}
	p.after, p.before, p.parts = nil, nil, nil
	if !p.saved {
		return note.VaultChange{}
	}
	r := p.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active--
	if len(p.c.Parts) == 0 {
		_ = r.write(false, nil, event{T: "drop", ID: p.c.ID})
		return note.VaultChange{}
	}
	if err := r.write(false, keep, event{T: "change", Change: &p.c}); err != nil {
		// The parts are in the log: the next process to open the record
		// settles the change from the files.
		return note.VaultChange{}
	}
	r.kept++
	if l := r.limits; l.MaxBytes > 0 && r.size > l.MaxBytes || r.kept >= pruneEvery || r.now().Sub(r.lastPrune) > time.Hour {
		r.prune()
	}
	return p.c
}

func cutLanded(op string) (string, bool) {
	rest, ok := strings.CutPrefix(op, landedMark)
	return rest, ok && rest != ""
}

// settle decides, for every change a dead process left with parts
// pending, whether each write landed, by looking at the file: the bytes it
// was to have, the file gone after a delete, at its destination after a
// move. What cannot be told is taken as not landed (the file as it was
// before is what the record shows then). A segment is dead when its lock
// can be taken; the settled changes, with the bytes they name, and a seal
// saying the segment is settled, go to this process's segment. r.mu is
// held.
func (r *Record) settle(vault *os.Root) {
	for _, s := range r.segs {
		if s.sealed || r.own != nil && s.name == r.own.name || !r.pendingIn(s.name) {
			continue
		}
		lock, dead := r.deadLock(s.name)
		if !dead {
			continue
		}
		// Settled by another process since the last look?
		if err := r.refresh(); err == nil && !s.sealed {
			r.settleSegment(vault, s)
		}
		_ = lock.Close()
	}
}

// pendingIn is whether segment seg left a change unfinished; r.mu is held.
func (r *Record) pendingIn(seg string) bool {
	for _, e := range r.entries {
		if e.seg == seg && e.unfinished() {
			return true
		}
	}
	return false
}

func (r *Record) settleSegment(vault *os.Root, s *segment) {
	var events []event
	var blobs []blob
	for id, e := range r.entries {
		if e.seg != s.name || !e.unfinished() {
			continue
		}
		c, pending, ok := e.parts()
		if !ok {
			r.damaged++
			continue
		}
		c.Parts = []note.ChangePart{}
		for _, part := range pending {
			op, landed := cutLanded(part.Op)
			if !landed {
				op, landed = part.Op, landedNow(vault, part)
			}
			if !landed {
				continue
			}
			part.Op = op
			c.Parts = append(c.Parts, part)
			// The bytes it names, into this segment, which may outlive
			// the dead one.
			for _, h := range []string{part.Before, part.After} {
				if h == "" {
					continue
				}
				if data, err := r.blob(h); err == nil {
					blobs = append(blobs, blob{data, h})
				}
			}
		}
		if len(c.Parts) == 0 {
			events = append(events, event{T: "drop", ID: id})
		} else {
			events = append(events, event{T: "change", Change: &c})
		}
	}
	events = append(events, event{T: "seal", Seg: s.name})
	if err := r.write(false, blobs, events...); err == nil {
		_ = r.refresh()
	}
}

// ID is the change's id (kept only when a part lands).
func (p *Pending) ID() string {
	if p == nil {
		return ""
	}
	return p.c.ID
}

// Undoes marks the change as the undo of the changes ids (newest first).
func (p *Pending) Undoes(ids []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c.Undoes = strings.Join(ids, ",")
}

// landedNow tells from the vault whether a pending part's write landed:
// an edit when the file's bytes are no longer those before (those it was
// to have, or later ones: then an undo finds it changed since, and says
// so).
func landedNow(vault *os.Root, part note.ChangePart) bool {
	exists := func(p string) bool {
		_, err := vault.Lstat(strings.TrimSuffix(p, "/"))
		return err == nil || !errors.Is(err, fs.ErrNotExist)
	}
	switch part.Op {
	case note.PartCreate, note.PartMkdir:
		return exists(part.Path)
	case note.PartDelete, note.PartRmdir:
		return !exists(part.Path)
	case note.PartMove:
		return !exists(part.Path) && exists(part.To)
	case note.PartEdit:
		data, err := vault.ReadFile(part.Path)
		return err == nil && Hash(data) != part.Before
	}
	return false
}
