package native

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// dataviewState is the engine's Dataview index: pages made from the
// notes as the search index reads them (vaultindex.WithExtra), and the
// vault's other files for links to resolve against.
type dataviewState struct {
	once  sync.Once
	vault *dataview.Vault
	mu    sync.Mutex
	// bulk keeps together the pages made while a sync reads the notes
	// the index has not made pages of yet (on the first query, all).
	bulk atomic.Pointer[dataview.Slab]
	// version and listed are the index's version and the file listing
	// the vault was last brought up to.
	version uint64
	listed  []string
}

// WithDataviewClock sets the clock and zone Dataview queries read
// ("today", dates written without a zone): a test seam, so that answers
// recorded at a fixed time can be replayed. By default the real clock and
// the machine's zone.
func WithDataviewClock(now func() time.Time, loc *time.Location) Option {
	return func(o *options) { o.dvNow, o.dvLoc = now, loc }
}

func (v *Engine) dataview() *dataview.Vault {
	v.dv.once.Do(func() {
		v.dv.vault = dataview.NewVault(dataview.Options{Location: v.dvLoc, Now: v.dvNow})
	})
	return v.dv.vault
}

// dataviewPage is the search index's extra for a note: its Dataview page.
func (v *Engine) dataviewPage(p string, data []byte, mod time.Time) any {
	if !dataview.IsMarkdown(p) {
		return nil
	}
	st := dataview.FileStat{Mtime: mod, Ctime: mod, Size: int64(len(data))}
	if c, _, ok := v.fileTimes(p); ok {
		st.Ctime = c
	}
	return v.dataview().ParsePageIn(v.dv.bulk.Load(), p, string(data), st)
}

// fileTimes are a file's creation time (its modification time where the
// system keeps none) and modification time, read through the jail.
func (v *Engine) fileTimes(p string) (ctime, mtime time.Time, ok bool) {
	// One open and the handle's stat: a stat by path through the jail
	// walks the path again (a first Dataview query does this for every
	// note).
	fh, err := v.root.Open(p)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	ctime, mtime = fi.ModTime(), fi.ModTime()
	if c := birthTime(fh, fi); !c.IsZero() && !c.After(mtime) {
		ctime = c
	}
	return ctime, mtime, true
}

// syncDataview brings the Dataview index up to the search index's notes
// and the vault's files.
func (v *Engine) syncDataview(ctx context.Context) (*dataview.Vault, error) {
	dv := v.dataview()
	s := &v.dv
	s.mu.Lock()
	defer s.mu.Unlock()
	var current map[string]*dataview.Page
	s.bulk.Store(dataview.NewSlab())
	defer s.bulk.Store(nil)
	// The index's own listing: one walk of the folders serves both.
	version, files, err := v.index().EachExtra(ctx, s.version, func(p string, x any) {
		if current == nil {
			current = map[string]*dataview.Page{}
		}
		if pm, ok := x.(*dataview.Page); ok {
			current[p] = pm
		}
	})
	if err != nil {
		return nil, err
	}
	if files == nil { // the index has no listing of its own yet
		if files, err = v.Files(); err != nil {
			return nil, err
		}
	}
	if version == s.version && sameListing(files, s.listed) {
		return dv, nil // nothing changed since the last query
	}
	// current is nil where the notes are as they were and only the
	// listing changed: the vault keeps the pages it holds.
	if current == nil && version != s.version {
		current = map[string]*dataview.Page{}
	}
	listed := make(map[string]bool, len(files))
	for _, f := range files {
		listed[f] = true
		old, held := dv.Has(f)
		pm := old
		if current != nil {
			pm = current[f]
		}
		switch {
		case pm != nil && pm != old:
			dv.PutPage(pm)
		case pm == nil && (!held || old != nil): // a new file, or no longer a page
			dv.PutFile(f)
		}
	}
	for _, f := range s.listed {
		if !listed[f] {
			dv.Remove(f)
		}
	}
	s.version, s.listed = version, files
	return dv, nil
}

// sameListing says whether two listings are the same (Files hands out
// the same slice while nothing changed).
func sameListing(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// QueryDataview answers a DQL query, or an inline expression (the text
// after "= "), from the page at origin ("" for none), over the visible
// notes of the vault.
func (v *Engine) QueryDataview(ctx context.Context, q note.DataviewQuery) (*dataview.Result, error) {
	dv, err := v.syncDataview(ctx)
	if err != nil {
		return nil, err
	}
	origin := ""
	if q.Origin != (note.Locator{}) {
		if origin, err = v.locate(ctx, q.Origin); err != nil {
			return nil, err
		}
	}
	var res *dataview.Result
	if q.Inline {
		res, err = dv.Inline(ctx, q.Query, origin, dataview.Limits{})
	} else {
		res, err = dv.Query(ctx, q.Query, origin, dataview.Limits{})
	}
	return res, err
}
