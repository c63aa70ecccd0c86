package changes

import (
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
	s  stored
	// saved is whether the change has a file yet: a call that writes
	// nothing leaves none.
	saved bool
	// after are the bytes each part's file is given, by part, kept at
	// End with the bytes before (the next change's bytes before, most
	// often: stored once), so that a change's diff and its undo never
	// depend on the note as it is now.
	after map[int][]byte
}

// Begin starts a change of tool, called by client.
func (r *Record) Begin(tool, client string) *Pending {
	now := r.now()
	return &Pending{r: r, s: stored{VaultChange: note.VaultChange{ID: newID(now), Time: now, Tool: tool, Client: client, Parts: []note.ChangePart{}}}}
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
	root, err := p.r.root()
	if err != nil {
		return nil, p.fail(err)
	}
	defer root.Close()
	if before != nil {
		var n int64
		if part.Before, n, err = keepBlob(root, before, false); err != nil {
			return nil, p.fail(err)
		}
		p.r.grew(n)
	}
	p.s.Pending = append(p.s.Pending, part)
	if err := p.r.save(root, &p.s, false); err != nil {
		p.s.Pending = p.s.Pending[:len(p.s.Pending)-1]
		return nil, p.fail(err)
	}
	p.saved = true
	i := len(p.s.Pending) - 1
	if part.After != "" {
		p.keepAfter(i, after)
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
	part := &p.s.Pending[pt.i]
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
	part := &p.s.Pending[pt.i]
	if h := Hash(before); h != part.Before {
		if root, err := p.r.root(); err == nil {
			if _, n, err := keepBlob(root, before, false); err == nil {
				p.r.grew(n)
				part.Before, part.Size = h, len(before)
			}
			_ = root.Close()
		}
	}
	part.After = Hash(after)
	p.keepAfter(pt.i, after)
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
	p.s.Pending[pt.i].After = Hash(after)
	p.keepAfter(pt.i, after)
}

// keepAfter holds the bytes part i is to have, for End.
func (p *Pending) keepAfter(i int, after []byte) {
	if after == nil {
		after = []byte{}
	}
	if p.after == nil {
		p.after = map[int][]byte{}
	}
	p.after[i] = after
}

// Failed says the part's write did not land: the part is dropped.
func (pt *Part) Failed() {
	if pt == nil {
		return
	}
	p := pt.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.s.Pending[pt.i].Op = droppedOp
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
	var keep [][]byte
	for i, part := range p.s.Pending {
		if op, ok := cutLanded(part.Op); ok {
			part.Op = op
			p.s.Parts = append(p.s.Parts, part)
			// Kept beside each After it hashes (Part, Again, Settle).
			if data, ok := p.after[i]; ok {
				keep = append(keep, data)
			}
		}
	}
	p.after = nil
	p.s.Pending = nil
	if !p.saved {
		return note.VaultChange{}
	}
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	root, err := p.r.root()
	if err != nil {
		return note.VaultChange{}
	}
	defer root.Close()
	if len(p.s.Parts) == 0 {
		// Its bytes, named by no change now, go at the next pruning.
		_ = root.Remove("changes/" + p.s.ID + ".json")
		return note.VaultChange{}
	}
	for _, data := range keep {
		if _, n, err := keepBlob(root, data, false); err == nil {
			p.r.size += n
		}
	}
	_ = p.r.save(root, &p.s, false)
	if fi, err := root.Lstat("changes/" + p.s.ID + ".json"); err == nil {
		p.r.size += fi.Size()
	}
	p.r.kept++
	if l := p.r.limits; l.MaxBytes > 0 && p.r.size > l.MaxBytes || p.r.kept >= pruneEvery || p.r.now().Sub(p.r.lastPrune) > time.Hour {
		p.r.prune(root)
	}
	return p.s.VaultChange
}

func cutLanded(op string) (string, bool) {
	if len(op) > len(landedMark) && op[:len(landedMark)] == landedMark {
		return op[len(landedMark):], true
	}
	return "", false
}

// settle decides, for every change a process left with parts pending,
// whether each write landed, by looking at the file: the bytes it was to
// have, the file gone after a delete, at its destination after a move.
// What cannot be told is taken as not landed (the file as it was before
// is what the record shows then).
func (r *Record) settle(root *os.Root, vault *os.Root) {
	list, err := ids(root)
	if err != nil {
		return
	}
	for _, id := range list {
		s, err := load(root, id)
		if err != nil || len(s.Pending) == 0 {
			continue
		}
		for _, part := range s.Pending {
			op, landed := cutLanded(part.Op)
			if !landed && part.Op != droppedOp {
				op, landed = part.Op, landedNow(vault, part)
			}
			if landed {
				part.Op = op
				s.Parts = append(s.Parts, part)
			}
		}
		s.Pending = nil
		if len(s.Parts) == 0 {
			_ = root.Remove("changes/" + id + ".json")
			continue
		}
		_ = r.save(root, s, true)
	}
	r.prune(root)
}

// landedNow tells from the vault whether a pending part's write landed:
// an edit when the file's bytes are no longer those before (those it was
// to have, or later ones: then an undo finds it changed since, and says
// so).
func landedNow(vault *os.Root, part note.ChangePart) bool {
	exists := func(p string) bool {
		_, err := vault.Lstat(p)
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

// grew counts n bytes written to the record.
func (r *Record) grew(n int64) {
	r.mu.Lock()
	r.size += n
	r.mu.Unlock()
}

// ID is the change's id (kept only when a part lands).
func (p *Pending) ID() string {
	if p == nil {
		return ""
	}
	return p.s.ID
}

// Undoes marks the change as the undo of the changes ids (newest first).
func (p *Pending) Undoes(ids []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.s.Undoes = strings.Join(ids, ",")
}
