package native

import (
	"bytes"
	"context"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/obsidian-mcp/obsidian-mcp/canvas"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// retarget rewrites, in every note, the links that the moves (old path →
// new path) would break or send elsewhere; files is the vault's file list
// before the moves. It is called with the write lock held, after the files
// moved. Notes the policy keeps this server from changing are left as
// they are. The error is the first that says the machine ran out of
// something (a full disk, no descriptors: errors.Resource) while notes
// were rewritten; those notes are in Failed.
//
// A note is read only when its text could hold such a link: one naming a
// moved file's old or new stem (plain or URL-encoded), or, for a moved note
// itself, any link (its relative links change with its folder).
func (v *Engine) retarget(ctx context.Context, files []string, moves map[string]string) (*note.LinkChanges, error) {
	after := make([]string, len(files))
	var needles [][]byte
	for i, f := range files {
		if to, ok := moves[f]; ok {
			f = to
		}
		after[i] = f
	}
	for from, to := range moves {
		for _, p := range []string{from, to} {
			stem := strings.ToLower(note.Stem(p))
			needles = append(needles, []byte(stem), []byte(strings.ToLower(links.Encode(stem))))
		}
	}
	m := &links.Move{Before: links.NewIndex(files), After: links.NewIndex(after), Moved: moves, Format: v.linkFormat()}

	type job struct{ before, now string }
	var jobs []job
	pol := v.Policy()
	for i, f := range files {
		if (note.IsMarkdown(f) || canvas.Is(f)) && pol.CheckWrite(after[i]) == nil {
			jobs = append(jobs, job{f, after[i]})
		}
	}
	results := make([]relinked, len(jobs))
	var next sync.Mutex
	n := 0
	var wg sync.WaitGroup
	// The work is mostly waiting on the disk (reads, and an fsync per
	// rewritten note), so more workers than cores pay off.
	for range max(8, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				i := n
				n++
				next.Unlock()
				if i >= len(jobs) {
					return
				}
				j := jobs[i]
				_, moved := moves[j.before]
				results[i] = v.relinkNote(ctx, m, j.before, j.now, moved, needles)
			}
		}()
	}
	wg.Wait()

	changes := &note.LinkChanges{Paths: []string{}}
	var short error
	for _, r := range results {
		switch {
		case r.err != nil:
			changes.Failed = append(changes.Failed, r.path)
			if _, ok := errors.Resource(r.err); ok && short == nil {
				short = r.err
			}
		case r.links > 0:
			changes.Links += r.links
			changes.Notes++
			if len(changes.Paths) < note.MaxListed {
				changes.Paths = append(changes.Paths, r.path)
			}
		}
	}
	sort.Strings(changes.Paths)
	return changes, short
}

// relinked is what happened to one note's links.
type relinked struct {
	path  string
	links int // links rewritten
	err   error
}

// relinkNote rewrites one note's links; before and now are its paths
// before and after the moves.
func (v *Engine) relinkNote(ctx context.Context, m *links.Move, before, now string, moved bool, needles [][]byte) (r relinked) {
	r.path = now
	if fi, err := v.root.Lstat(now); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A linked note: the file it names is relinked as itself.
		return r
	}
	data, err := v.root.ReadFile(now)
	if err != nil {
		r.err = err
		return r
	}
	if !moved && !mentions(data, needles) {
		return r
	}
	retarget := func(data []byte) ([]byte, int) { return m.Retarget(data, before, now) }
	if canvas.Is(now) {
		// A canvas shows files by path and its text nodes link like a
		// note's text, as Obsidian updates them.
		retarget = func(data []byte) ([]byte, int) {
			return canvas.Retarget(data, m.Moved, func(text []byte) ([]byte, int) { return m.Retarget(text, before, now) })
		}
	}
	if _, n := retarget(data); n == 0 {
		return r
	}
	// The note is rewritten as a compare-and-swap on what it holds when
	// it is replaced, not on what was read above: a program that saved it
	// meanwhile (Obsidian, a sync client) keeps its edit, and the links
	// are rewritten in its version.
	res, err := v.update(ctx, now, now, func(cur []byte) ([]byte, error) {
		out, n := retarget(cur)
		r.links = n
		return out, nil
	})
	if err != nil {
		r.err, r.links = err, 0
		return r
	}
	if bytes.Equal(res.Old, res.New) {
		r.links = 0
	} else {
		v.replay.noted(now, res.Old, res.New)
	}
	return r
}

// mentions reports whether data contains any needle, ignoring ASCII case.
func mentions(data []byte, needles [][]byte) bool {
	lower := bytes.ToLower(data)
	for _, n := range needles {
		if bytes.Contains(lower, n) {
			return true
		}
	}
	return false
}
