package vaultindex

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// A build of many notes (the first one of a vault without a saved index,
// or a sync that changed thousands of notes) takes seconds: 20 at 100,000
// notes. Calls that arrive meanwhile wait for it, reporting its progress
// to a client that asked for progress; a search that has waited its
// patience out is answered from the notes indexed so far, marked partial,
// rather than keep its client waiting past a timeout.

// yieldAbove is how many notes a refresh must read to be such a build.
const yieldAbove = 4 * readBatch

// DefaultPatience is how long a search waits for a build before it
// answers from the part indexed (WithPatience).
const DefaultPatience = 10 * time.Second

// progressEvery is how often a waiting call reports progress.
const progressEvery = time.Second

// WithPatience sets how long a search waits for a build in progress
// before it answers from the notes indexed so far; 0 waits to the end.
func WithPatience(d time.Duration) Option { return func(ix *Index) { ix.patience = d } }

// building is a build in progress.
type building struct {
	done  chan struct{} // closed when it ends
	read  atomic.Int64  // notes read so far
	total atomic.Int64  // notes it reads
	base  atomic.Int64  // notes indexed before it began
	// waiting counts searches that ran out of patience and wait for the
	// lock: the build lets them in between batches.
	waiting atomic.Int32
}

// startBuild marks a large build begun; the lock is held. The returned
// function marks it ended.
func (ix *Index) startBuild(total int) (*building, func()) {
	b := &building{done: make(chan struct{})}
	b.total.Store(int64(total))
	b.base.Store(int64(ix.count))
	ix.build.Store(b)
	return b, func() {
		ix.build.Store(nil)
		close(b.done)
	}
}

// between runs between two batches of a large build, the lock held: a
// search that waited its patience out gets the lock for its answer over
// the notes merged so far (a consistent index: no batch is half merged,
// and the next is not yet being parsed).
func (ix *Index) between(b *building, merged int) {
	b.read.Add(int64(merged))
	if b.waiting.Load() > 0 || ix.queued.Load() > 0 {
		ix.mu.Unlock()
		ix.mu.Lock()
	}
}

// waitBuild waits for a build in progress, if there is one, reporting its
// progress. With patience > 0 it gives up after that long and returns the
// build, still running; otherwise nil once the build is over.
func (ix *Index) waitBuild(ctx context.Context, patience time.Duration) (*building, error) {
	b := ix.build.Load()
	if b == nil {
		return nil, nil
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var out <-chan time.Time
	if patience > 0 {
		t := time.NewTimer(patience)
		defer t.Stop()
		out = t.C
	}
	say := func() { b.report(ctx) }
	say()
	for {
		select {
		case <-b.done:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			say()
		case <-out:
			return b, nil
		}
	}
}

// report tells the caller of ctx, if it asked for progress, how far b is.
func (b *building) report(ctx context.Context) {
	read, total, base := int(b.read.Load()), int(b.total.Load()), int(b.base.Load())
	note.ProgressOf(ctx)(base+read, base+total, fmt.Sprintf("indexing the vault: %d of %d notes read", read, total))
}

// runPartial runs fn on the notes indexed so far by b, a build that run
// waited its patience out for. It reports done false, having run nothing,
// when b ended before the lock came.
func (ix *Index) runPartial(ctx context.Context, b *building, fn func(*note.Partial) error) (done bool, err error) {
	b.waiting.Add(1)
	ix.mu.Lock()
	b.waiting.Add(-1)
	defer ix.mu.Unlock()
	select {
	case <-b.done:
		return false, nil
	default:
	}
	return true, ix.partial(ctx, b, fn)
}

// partial runs fn on the notes b has indexed so far; the lock is held,
// between two of b's batches.
func (ix *Index) partial(ctx context.Context, b *building, fn func(*note.Partial) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	all := int(b.base.Load() + b.total.Load())
	return fn(&note.Partial{Indexed: ix.count, Notes: all,
		Note: fmt.Sprintf("the vault is being indexed for the first time: %d of %d notes searched; search again in a few seconds for all", ix.count, all)})
}
