package vaultindex

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Store keeps snapshots of the index between runs of the program, so that
// a restart reads again only the notes that changed (WithStore). The index
// checks every note of a snapshot against the vault before using it, by
// size, modification time and identity, so a snapshot that is old, or
// from a process that saw less, costs reading but is never wrong.
type Store interface {
	// Open returns the last snapshot published; fs.ErrNotExist when there
	// is none.
	Open() (io.ReadSeekCloser, error)
	// Publish writes a snapshot through write and, when write returns
	// nil, puts it in place of the last one at once: a reader gets the
	// old snapshot or the new one, whole. It returns ErrBusy, having
	// written nothing, while another process publishes one.
	Publish(write func(io.Writer) error) error
}

// Builds is what a Store may also offer: a lock that the process building
// the index afresh holds until its snapshot is saved, so that the other
// processes on the vault (Claude Desktop, Claude Code and Cursor each run
// one) wait and load it instead of building the same.
type Builds interface {
	// TryBuild takes the build lock if no process holds it; ok is also
	// true when the lock cannot be had at all (this process then builds).
	TryBuild() (release func(), ok bool)
	// WaitBuilt returns once no process holds the build lock, or ctx ends.
	WaitBuilt(ctx context.Context) error
}

// ErrBusy is a Store declining to publish while another process does.
var ErrBusy = errors.New("another process is saving the index")

// WithStore keeps the index in store between runs. tag names what the
// index is of (the vault, the program's build): a snapshot saved under
// another tag is not used.
func WithStore(store Store, tag string) Option {
	return func(ix *Index) { ix.keep = &keeper{store: store, tag: tag} }
}

// WithLogger sets where the index says what it loaded and saved.
func WithLogger(l *slog.Logger) Option { return func(ix *Index) { ix.logger = l } }

// keeper is the index's side of its Store. Its fields are guarded by the
// index's lock.
type keeper struct {
	store Store
	tag   string
	tried bool // the store was asked for a snapshot
	// have: the store holds a snapshot of this index (loaded or saved);
	// dirty counts the notes read or dropped since.
	have   bool
	dirty  int
	saving bool
	retry  time.Time // no saving before, after a failure
	wg     sync.WaitGroup
	// release gives back the build lock (Builds) once the build's
	// snapshot is saved, or could not be.
	release func()
}

// Save thresholds: a snapshot is saved after the first build, then once
// notes read or dropped since the last one reach this share of the vault
// (and at least minDirty): a restart reads at most that many again, and
// saves stay rare (the index is locked while one is written).
const (
	dirtyShare = 50 // 1/50 = 2%
	minDirty   = 64
	retryAfter = 5 * time.Minute
)

// releaseBuild gives back the build lock, if this process holds it.
func (k *keeper) releaseBuild() {
	if k.release != nil {
		k.release()
		k.release = nil
	}
}

// claimBuild is called, the lock held, by a build of many notes that is
// this process's first: when another process is building the index
// already, it waits for that one (the lock let go meanwhile, so searches
// answer in part) and loads its snapshot. It returns what is left to read
// then; otherwise stale, with this process holding the build lock until
// its snapshot is saved.
func (ix *Index) claimBuild(ctx context.Context, b *building, stale []string, files []string) (left []string, waited bool) {
	k := ix.keep
	coord, ok := k.store.(Builds)
	if !ok {
		return stale, false
	}
	release, mine := coord.TryBuild()
	if mine {
		k.release = release
		// Another process may have built the index and saved it between
		// this one's first look for a snapshot and now (it lets go of
		// the lock once its snapshot is saved): look again, or this one
		// builds it a second time (seen with four servers started at
		// once on a busy machine).
		if ix.count == 0 {
			ix.load()
			if ix.count > 0 {
				stale = ix.takeOut(files, nil)
				b.base.Store(int64(ix.count))
				b.total.Store(int64(len(stale)))
				return stale, true
			}
		}
		return stale, false
	}
	ix.logger.Info("another obsidian-mcp process is indexing this vault; waiting for its index")
	ix.mu.Unlock()
	err := coord.WaitBuilt(ctx)
	ix.mu.Lock()
	if err != nil {
		return stale, false
	}
	ix.load()
	stale = ix.takeOut(files, nil)
	b.base.Store(int64(ix.count))
	b.total.Store(int64(len(stale)))
	if len(stale) > yieldAbove {
		// Its build did not finish (it stopped or died): this one builds,
		// and holds the lock while it does.
		if release, mine := coord.TryBuild(); mine {
			k.release = release
		}
	}
	return stale, true
}

// load installs the store's snapshot, if it has one this index can use.
// The refresh that follows checks every note of it against the vault.
func (ix *Index) load() {
	k := ix.keep
	k.tried = true
	started := time.Now()
	rc, err := k.store.Open()
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ix.logger.Warn("cannot open the saved search index; building it afresh", "err", err)
		}
		return
	}
	if size, err := rc.Seek(0, io.SeekEnd); err == nil && ix.onBuild != nil {
		defer ix.onBuild(Build{Load: true, Size: size})()
	}
	sc, _ := ix.scratch()
	l, err := readSnapshot(rc, k.tag, sc)
	if err != nil || !l.adopted {
		_ = rc.Close() // else it is the index's positions file now
	}
	if err != nil {
		var foreign errForeign
		if errors.As(err, &foreign) {
			ix.logger.Info("saved search index not used; building it afresh", "why", foreign.why)
		} else {
			ix.logger.Warn("saved search index is damaged; building it afresh", "err", err)
		}
		return
	}
	ix.install(l)
	k.have = true
	k.dirty = 0
	ix.logger.Debug("search index loaded", "notes", len(l.docs), "terms", len(l.termText), "took", time.Since(started).Round(time.Millisecond))
}

// install makes a decoded snapshot the index.
func (ix *Index) install(l *loaded) {
	ix.docs = l.docs
	ix.changes++
	ix.dead = 0
	ix.termText = l.termText
	ix.postings = l.postings
	ix.sealed.close()
	ix.sealed = l.sealed
	ix.tails = 0
	for _, pl := range l.postings {
		ix.tails += len(pl.pos)
	}
	ix.byPath = l.byPath
	ix.termID, ix.sorted = nil, l.sorted
	ix.fresh = map[string]uint32{}
	ix.racy = map[uint32]bool{}
	ix.totals = [nFields]uint64{}
	for id, d := range l.docs {
		if d.racy() {
			ix.racy[uint32(id)] = true
		}
		for f := range nFields {
			ix.totals[f] += uint64(d.lens[f])
		}
	}
	ix.count = len(l.docs)
	ix.linkIx, ix.linkFor, ix.graph = nil, nil, nil
	ix.resolveGen++
	for _, d := range l.docs {
		if len(d.snapAnchors) == 0 {
			continue
		}
		d.anchors = make([][]uint32, len(d.snapAnchors))
		for k, words := range d.snapAnchors {
			for _, w := range words {
				if t, ok := ix.lookup(w); ok {
					d.anchors[k] = append(d.anchors[k], t)
				}
			}
		}
		d.snapAnchors = nil
	}
	ix.reindexAnchors()
}

// saveDue says whether a snapshot should be saved now; the lock is held.
func (ix *Index) saveDue() bool {
	k := ix.keep
	if k == nil || k.saving || k.dirty == 0 || time.Now().Before(k.retry) {
		return false
	}
	return !k.have || k.dirty >= max(minDirty, ix.count/dirtyShare)
}

// saveLater saves a snapshot on its own goroutine, so that the answer
// that made it due is not kept waiting; the lock is held.
func (ix *Index) saveLater() {
	k := ix.keep
	k.saving = true
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		ix.mu.Lock()
		defer ix.mu.Unlock()
		k.saving = false
		defer k.releaseBuild()
		if err := ix.saveLocked(); err != nil {
			k.retry = time.Now().Add(retryAfter)
			if !errors.Is(err, ErrBusy) {
				ix.logger.Warn("cannot save the search index; the next start builds it again", "err", err)
			}
		}
	}()
}

// Save writes a snapshot of the index to its store now, if anything
// changed since the last one. Without a store it does nothing.
func (ix *Index) Save() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.keep == nil || !ix.built || ix.keep.dirty == 0 {
		return nil
	}
	return ix.saveLocked()
}

func (ix *Index) saveLocked() error {
	k := ix.keep
	started := time.Now()
	err := k.store.Publish(func(w io.Writer) error { return ix.encode(w, k.tag) })
	if err != nil {
		return err
	}
	k.have, k.dirty = true, 0
	ix.logger.Debug("search index saved", "notes", ix.count, "took", time.Since(started).Round(time.Millisecond))
	return nil
}

// savePart saves what a build stopped part way (the index closed: the
// process is ending) had read, so that the next start reads only the rest:
// a client that starts the server for one search and exits (a script, a
// one-shot agent) otherwise had every start build from the beginning
// again. left is how many notes the build had yet to read. The snapshot holds the notes read; the next start's refresh
// compares it with the vault's listing as it does any snapshot, and reads
// the notes it lacks. The lock is held.
func (ix *Index) savePart(left int, started time.Time) {
	k := ix.keep
	if k == nil || ix.count == 0 || k.dirty == 0 {
		return
	}
	if err := ix.saveLocked(); err != nil {
		if !errors.Is(err, ErrBusy) {
			ix.logger.Warn("cannot save the part of the search index built", "err", err)
		}
		return
	}
	ix.logger.Info("search index stopped part way; the part built is saved for the next start", "notes", ix.count, "left", left, "took", time.Since(started).Round(time.Millisecond))
}

// Close stops a build in progress and waits for it, and for a snapshot
// being saved. Later calls still answer; a build they need runs again.
func (ix *Index) Close() {
	ix.stopMu.Lock()
	defer ix.stopMu.Unlock()
	ix.cancel()
	ix.builds.Wait()
	ix.stop, ix.cancel = context.WithCancel(context.Background())
	if ix.keep != nil {
		ix.keep.wg.Wait()
	}
}

// readSnapshot reads a snapshot saved under tag: its checksum first, in
// one streaming pass (50 ms at 100,000 notes), so that a damaged file
// never reaches the decoder, which would allocate what a length gone
// wrong says, up to a gigabyte; then its values.
//
// With sc, the positions go to a file of sc's (sealed.go).
func readSnapshot(r io.ReadSeeker, tag string, sc Scratch) (*loaded, error) {
	if _, err := CheckSnapshot(r, tag); err != nil {
		return nil, err
	}
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return decode(r, tag, size, sc)
}

// SnapshotInfo is what a saved snapshot says of itself.
type SnapshotInfo struct {
	Saved        time.Time
	Notes, Terms int
}

// CheckSnapshot reads a snapshot through, checking its sum, and returns
// what its header says; an error says why it would not be used under tag
// (another format, version or vault, or damage). It holds none of it.
func CheckSnapshot(r io.ReadSeeker, tag string) (SnapshotInfo, error) {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return SnapshotInfo{}, err
	}
	if size < 4 {
		return SnapshotInfo{}, fmt.Errorf("%d bytes: too short for a snapshot", size)
	}
	var want [4]byte
	if _, err := r.Seek(size-4, io.SeekStart); err != nil {
		return SnapshotInfo{}, err
	}
	if _, err := io.ReadFull(r, want[:]); err != nil {
		return SnapshotInfo{}, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return SnapshotInfo{}, err
	}
	sum := crc32.New(castagnoli)
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(r, size-4), sum), 1<<16)
	var head snapHeader
	if err := gob.NewDecoder(br).Decode(&head); err != nil {
		return SnapshotInfo{}, err
	}
	info := SnapshotInfo{Saved: head.Saved, Notes: head.Docs, Terms: head.Terms}
	if err := head.foreign(tag); err != nil {
		return info, err
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return info, err
	}
	if w, got := binary.BigEndian.Uint32(want[:]), sum.Sum32(); w != got {
		return info, fmt.Errorf("checksum %08x, content sums to %08x", w, got)
	}
	return info, nil
}
