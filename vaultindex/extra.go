package vaultindex

import (
	"context"
	"time"
)

// Extra is what another reader of notes makes of each one, from the
// bytes the index reads anyway (Dataview's page of a note): kept beside
// the note, dropped with it. It costs nothing until it is first asked
// for (EachExtra): then the notes already indexed are read for it once,
// on every core, and from then on each note read makes its extra in the
// same read. A snapshot does not keep it.
type Extra func(path string, data []byte, mod time.Time) any

// WithExtra makes fn each note's extra.
func WithExtra(fn Extra) Option { return func(ix *Index) { ix.extra = fn } }

// EachExtra calls fn with every note's extra, in path order, on an
// up-to-date index, unless no note was added or taken out since the
// version the caller had (since; 0 for none): it returns the version
// the calls were made at, and the vault's listing the index was brought
// up to (the Source's slice: the same one while nothing changed). A note whose extra is not made yet (it came
// from a snapshot) is read for it first, those notes on every core at
// once.
func (ix *Index) EachExtra(ctx context.Context, since uint64, fn func(path string, extra any)) (uint64, []string, error) {
	if ix.extra == nil {
		return 0, nil, nil
	}
	ix.extraOn.Store(true)
	var version uint64
	var files []string
	err := ix.view(ctx, func() error {
		version, files = ix.changes+1, ix.linkFor // never 0
		if version == since {
			return nil
		}
		ids := ix.sortedIDs()
		var missing []uint32
		for _, id := range ids {
			if !ix.docs[id].madeExtra {
				missing = append(missing, id)
			}
		}
		made := make([]any, len(missing))
		parallel(len(missing), func(i int) {
			d := ix.docs[missing[i]]
			if data, err := ix.src.ReadFile(d.path); err == nil {
				made[i] = ix.extra(d.path, data, d.stamp.Mod)
			}
		})
		for i, id := range missing {
			ix.docs[id].extra, ix.docs[id].madeExtra = made[i], true
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			if d := ix.docs[id]; d.extra != nil {
				fn(d.path, d.extra)
			}
		}
		return nil
	})
	return version, files, err
}
