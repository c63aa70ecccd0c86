package changes

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// What an undo does to one file: Plan answers these, and the engine
// takes them in order, each checked again as it is taken.
const (
	// StepWrite gives the file at Path (Expect its bytes' hash now) Data.
	StepWrite = "restore"
	// StepTrash moves the file at Path (with Expect's bytes) to the trash.
	StepTrash = "trash"
	// StepCreate puts Data back at Path, where nothing is: from the
	// trash (From) when the file there still has those bytes.
	StepCreate = "create"
	// StepMove moves From back to Path (folders end in "/").
	StepMove = "move"
	// StepRmdir removes the folder Path, when empty.
	StepRmdir = "rmdir"
	// StepMkdir makes the folder Path again, from the trash (From) when
	// the folder is still there.
	StepMkdir = "mkdir"
)

// A Step is one thing an undo does.
type Step struct {
	Op, Path, From string
	Expect         string
	Data           []byte
	// Merged: the file changed since the change; Data reverses only the
	// change's lines.
	Merged bool
}

// Files is the vault as an undo plans on it.
type Files interface {
	// ReadFile is a file's bytes; fs.ErrNotExist when there is none.
	ReadFile(name string) ([]byte, error)
	// Lstat is what is at name.
	Lstat(name string) (fs.FileInfo, error)
	// ReadDir names what a folder holds.
	ReadDir(name string) ([]fs.DirEntry, error)
}

// Plan is how to revert the changes cs, in their order (newest first),
// on the vault as files shows it: each change's parts reversed newest
// first, each file back to its bytes before (or, where it changed since,
// with only the change's lines reversed). A part that cannot be reverted
// without losing later work is a conflict, and then nothing is to be
// done: the steps are for all of cs or none of them.
func (r *Record) Plan(cs []note.VaultChange, files Files) ([]Step, []note.UndoConflict, error) {
	s := &sim{disk: files, over: map[string]*simFile{}}
	var steps []Step
	var conflicts []note.UndoConflict
	for _, c := range cs {
		var err error
		if steps, conflicts, err = r.plan(c, s, steps, conflicts); err != nil {
			return nil, nil, err
		}
	}
	if len(conflicts) > 0 {
		return nil, conflicts, nil
	}
	return steps, nil, nil
}

func (r *Record) plan(c note.VaultChange, s *sim, steps []Step, conflicts []note.UndoConflict) ([]Step, []note.UndoConflict, error) {
	conflict := func(p, reason, diff string) {
		conflicts = append(conflicts, note.UndoConflict{Path: p, Reason: reason, Diff: diff})
	}
	for _, part := range slices.Backward(c.Parts) {
		switch part.Op {
		case note.PartEdit:
			cur, ok := s.file(part.Path)
			if !ok {
				conflict(part.Path, "the note is no longer there (deleted or moved since)", "")
				continue
			}
			before, err := r.Blob(part.Before)
			if err != nil {
				return nil, nil, err
			}
			if Hash(cur) == part.After {
				steps = append(steps, Step{Op: StepWrite, Path: part.Path, Expect: Hash(cur), Data: before})
				s.set(part.Path, before)
				continue
			}
			after, err := r.Blob(part.After)
			if err != nil {
				conflict(part.Path, "the note changed since, and the record no longer has its bytes after this change, so its lines cannot be told from later ones", "")
				continue
			}
			merged, ok := reverse(after, before, cur)
			if !ok {
				conflict(part.Path, "the note changed since, and the later edits touch the lines this change wrote", later(part.Path, after, cur))
				continue
			}
			if !bytes.Equal(merged, cur) {
				steps = append(steps, Step{Op: StepWrite, Path: part.Path, Expect: Hash(cur), Data: merged, Merged: true})
				s.set(part.Path, merged)
			}
		case note.PartCreate:
			cur, ok := s.file(part.Path)
			switch {
			case !ok:
				// Gone already: nothing to remove.
			case Hash(cur) != part.After:
				after, _ := r.Blob(part.After)
				conflict(part.Path, "the note was made by this change and changed since; removing it would lose the later edits", later(part.Path, after, cur))
			default:
				steps = append(steps, Step{Op: StepTrash, Path: part.Path, Expect: part.After})
				s.remove(part.Path)
			}
		case note.PartDelete:
			if s.exists(part.Path) {
				conflict(part.Path, "a file is at this path again; putting the deleted note back would replace it", "")
				continue
			}
			before, err := r.Blob(part.Before)
			if err != nil {
				return nil, nil, err
			}
			steps = append(steps, Step{Op: StepCreate, Path: part.Path, From: part.Trash, Data: before})
			s.set(part.Path, before)
		case note.PartMove:
			switch {
			case !s.exists(strings.TrimSuffix(part.To, "/")):
				conflict(part.To, "it is no longer there to move back to "+part.Path, "")
			case s.exists(strings.TrimSuffix(part.Path, "/")):
				conflict(part.Path, "something is at this path again; moving "+part.To+" back would replace it", "")
			default:
				steps = append(steps, Step{Op: StepMove, Path: part.Path, From: part.To})
				s.move(part.To, part.Path)
			}
		case note.PartMkdir:
			if s.isDir(part.Path) {
				steps = append(steps, Step{Op: StepRmdir, Path: part.Path})
				s.remove(part.Path)
			}
		case note.PartRmdir:
			if !s.exists(part.Path) {
				steps = append(steps, Step{Op: StepMkdir, Path: part.Path, From: part.Trash})
				s.mkdir(part.Path)
			}
		default:
			return nil, nil, fmt.Errorf("the record's change %s has a part it cannot undo (%q)", c.ID, part.Op)
		}
	}
	return steps, conflicts, nil
}

// reverse takes out of now the edit that turned before into after: the
// lines the change wrote are put back as they were, and the lines
// written since kept. It fails when a later edit touches the change's
// own lines, or lies among them: which should win is then the person's
// call. udiff.Merge joins the two sets of edits once they are known to
// be apart.
func reverse(after, before, now []byte) ([]byte, bool) {
	undo := udiff.Lines(string(after), string(before))
	since := udiff.Lines(string(after), string(now))
	for _, u := range undo {
		for _, s := range since {
			if u == s {
				continue // the same edit already made: it is kept once
			}
			overlap := s.Start < u.End && u.Start < s.End
			inside := s.Start == s.End && u.Start < s.Start && s.Start < u.End ||
				u.Start == u.End && s.Start < u.Start && u.Start < s.End
			bothInsert := u.Start == u.End && s.Start == s.End && u.Start == s.Start
			if overlap || inside || bothInsert {
				return nil, false
			}
		}
	}
	edits, ok := udiff.Merge(undo, since)
	if !ok {
		return nil, false
	}
	out, err := udiff.ApplyBytes(after, edits)
	return out, err == nil
}

// later is a diff of what was done to a note since a change (its bytes
// then to now), cut short for an answer.
func later(p string, then, now []byte) string {
	d, _ := capped(udiff.Unified("a/"+p+" (as the change left it)", "b/"+p+" (now)", string(then), string(now)), 4000)
	return d
}

// capped is s cut at a line end near max bytes.
func capped(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := strings.LastIndexByte(s[:max], '\n')
	if cut < 0 {
		cut = max
	}
	return s[:cut+1], true
}

// sim is the vault as it will be once the steps planned so far are
// taken: files written or removed, and moves, over what is on disk.
type sim struct {
	disk Files
	// over holds each path the steps changed: nil data is no file.
	over map[string]*simFile
	// moved maps paths the steps moved: newest last; a path under to is
	// on disk under from, and one under from is gone (unless over says).
	moved []simMove
}

type simFile struct {
	data  []byte
	gone  bool
	isDir bool
}

// simMove is a move the steps make: what is under to was on disk under
// disk, and what was under from is gone.
type simMove struct{ from, disk, to string }

// under is whether p is name or inside it.
func under(p, name string) (string, bool) {
	if p == name {
		return "", true
	}
	rest, ok := strings.CutPrefix(p, name+"/")
	return rest, ok
}

// onDisk is where p is on disk now, or false when the steps took it away.
func (s *sim) onDisk(p string) (string, bool) {
	for _, m := range slices.Backward(s.moved) {
		if rest, ok := under(p, m.to); ok {
			if rest == "" {
				return m.disk, true
			}
			return m.disk + "/" + rest, true
		}
		if _, ok := under(p, m.from); ok {
			return "", false
		}
	}
	return p, true
}

func (s *sim) file(p string) ([]byte, bool) {
	if f, ok := s.over[p]; ok {
		return f.data, !f.gone && !f.isDir
	}
	d, ok := s.onDisk(p)
	if !ok {
		return nil, false
	}
	data, err := s.disk.ReadFile(d)
	return data, err == nil
}

func (s *sim) exists(p string) bool {
	if f, ok := s.over[p]; ok {
		return !f.gone
	}
	d, ok := s.onDisk(p)
	if !ok {
		return false
	}
	_, err := s.disk.Lstat(d)
	return err == nil
}

// isDir is whether p is a folder that will hold nothing once the steps
// are taken.
func (s *sim) isDir(p string) bool {
	made := false
	if f, ok := s.over[p]; ok {
		if f.gone || !f.isDir {
			return false
		}
		made = true
	}
	for q, f := range s.over {
		if rest, in := under(q, p); in && rest != "" && !f.gone {
			return false
		}
	}
	d, ok := s.onDisk(p)
	if !ok {
		return made
	}
	fi, err := s.disk.Lstat(d)
	if err != nil || !fi.IsDir() {
		return made
	}
	entries, err := s.disk.ReadDir(d)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if f, ok := s.over[p+"/"+e.Name()]; !ok || !f.gone {
			return false
		}
	}
	return true
}

func (s *sim) set(p string, data []byte) { s.over[p] = &simFile{data: data} }
func (s *sim) remove(p string)           { s.over[p] = &simFile{gone: true} }
func (s *sim) mkdir(p string)            { s.over[p] = &simFile{isDir: true} }

// move moves what is at from (a folder when it ends in "/") to to.
func (s *sim) move(from, to string) {
	from, to = strings.TrimSuffix(from, "/"), strings.TrimSuffix(to, "/")
	d, _ := s.onDisk(from)
	for q, f := range s.over {
		if rest, ok := under(q, from); ok {
			delete(s.over, q)
			if rest == "" {
				s.over[to] = f
			} else {
				s.over[to+"/"+rest] = f
			}
		}
	}
	s.moved = append(s.moved, simMove{from: from, disk: d, to: to})
	s.over[from] = &simFile{gone: true}
}

// RootFiles is the vault under root, as Plan reads it.
func RootFiles(root *os.Root) Files { return rootFiles{root} }

type rootFiles struct{ *os.Root }

func (r rootFiles) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(r.FS(), name) }
