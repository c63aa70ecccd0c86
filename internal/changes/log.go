package changes

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/native/statedir"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// The record is a log per process: each process that writes appends to
// segment files of its own (log/<segment>.log, one JSON line per event;
// log/<segment>.dat, the bytes of files, which events point into), so no
// two processes ever write one file, and a change costs two appends to
// files already open, not a file made. A segment is held by its process
// through a lock on log/<segment>.lock, which the system lets go when the
// process dies, even by SIGKILL: a segment whose lock can be taken is
// dead, and what it left pending is settled by the next process to open
// the record. Segments are forgotten whole, oldest first; each holds the
// bytes its own changes name, so forgetting one never takes bytes another
// needs.

// An event is one line of a segment's log.
type event struct {
	// T is "blob" (bytes stored in the segment's .dat), "part" (a part
	// recorded before its write), "change" (a change made: its landed
	// parts), "drop" (a change none of whose parts landed), or "seal" (a
	// dead segment settled: Seg).
	T      string            `json:"t"`
	Change *note.VaultChange `json:"change,omitempty"`
	Part   *note.ChangePart  `json:"part,omitempty"`
	ID     string            `json:"id,omitempty"`
	Seg    string            `json:"seg,omitempty"`
	// A blob's hash, where it starts in .dat, its length there, and
	// whether it is gzipped.
	Hash string `json:"h,omitempty"`
	Off  int64  `json:"o,omitempty"`
	Len  int64  `json:"n,omitempty"`
	Gz   bool   `json:"z,omitempty"`
}

// segment is what this process has read of one segment.
type segment struct {
	name string
	// off is how far its log has been read: up to the end of the last
	// whole line.
	off   int64
	size  int64 // of .log and .dat, when last looked at
	blobs map[string]blobAt
	// newest is the time of its newest change, for MaxAge.
	newest time.Time
	sealed bool
}

type blobAt struct {
	off, n int64
	gz     bool
}

// entry is one change as the record's segments tell it.
type entry struct {
	seg string
	c   *note.VaultChange // made (a "change" line)
	// raw are the lines of its parts recorded, not known landed.
	raw     [][]byte
	dropped bool
}

// own is the segment this process writes.
type own struct {
	name     string
	log, dat *os.File
	lock     *statedir.Lock
	datSize  int64
	logSize  int64
	started  time.Time
	blobs    map[string]bool
	segLimit int64
	gz       *gzip.Writer
}

const logDir = "log"

// segmentLimit is the size past which a process starts a new segment: a
// sixteenth of MaxBytes (so that forgetting whole segments keeps the
// record near its bound), between 4 KB and 8 MB.
func segmentLimit(l Limits) int64 {
	if l.MaxBytes <= 0 {
		return 8 << 20
	}
	return min(max(l.MaxBytes/16, 4<<10), 8<<20)
}

// segmentAge is how long a process writes one segment at most, so that
// a server running for weeks still lets its old changes go at MaxAge.
const segmentAge = 24 * time.Hour

// writer is this process's segment, made as needed; with fresh (the
// first part of a change, while no other is being made) a new one is
// started when it is full or old, so that a change's lines and bytes are
// always in one segment. r.mu is held.
func (r *Record) writer(fresh bool) (*own, error) {
	root := r.rh
	if w := r.own; w != nil {
		stale := r.now().Sub(w.started) > segmentAge || w.logSize+w.datSize > w.segLimit
		if !stale || !fresh || r.active > 0 {
			return w, nil
		}
		r.closeOwn()
	}
	name := newID(r.now())
	// The lock first: a segment's log never exists without its lock held.
	lf, err := root.OpenFile(logDir+"/"+name+".lock", os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	lock := statedir.LockOf(lf)
	// Another process may hold it for the instant it takes to see that
	// the segment is not dead: Lock waits that instant out.
	if err := lock.Lock(); err != nil {
		_ = lf.Close()
		return nil, err
	}
	open := func(ext string) (*os.File, error) {
		return root.OpenFile(logDir+"/"+name+ext, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	logf, err := open(".log")
	if err != nil {
		_ = lf.Close()
		return nil, err
	}
	datf, err := open(".dat")
	if err != nil {
		_ = logf.Close()
		_ = lf.Close()
		return nil, err
	}
	r.own = &own{name: name, log: logf, dat: datf, lock: lock, started: r.now(), blobs: map[string]bool{}, segLimit: segmentLimit(r.limits)}
	return r.own, nil
}

// closeOwn lets this process's segment go (it is then dead, and settled
// and forgotten as any other).
func (r *Record) closeOwn() {
	if w := r.own; w != nil {
		_ = w.log.Close()
		_ = w.dat.Close()
		_ = w.lock.Close()
		r.own = nil
	}
}

// Close lets the record go: its segment is closed (changes still being
// made are left pending, settled by the next process to open the record).
func (r *Record) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeOwn()
	_ = r.rh.Close()
}

// appendEvents writes events as one append to the log; r.mu is held.
func (w *own) appendEvents(events ...event) error {
	var b bytes.Buffer
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	n, err := w.log.Write(b.Bytes())
	w.logSize += int64(n)
	return err
}

// storeBlob puts data in the segment unless it holds it already, and
// returns the event that says where (none when it was there); r.mu is
// held. Bytes of 16 KB or more are gzipped when that saves a quarter or
// more: below, compressing costs more of a write than the space it saves
// is worth (measured on appends to notes of 5 KB: 38 % more time with
// each change's bytes gzipped, against 11 to 17 % without).
func (w *own) storeBlob(b blob) (event, bool, error) {
	data, h := b.data, b.hash
	if w.blobs[h] {
		return event{}, false, nil
	}
	body, gz := data, false
	if len(data) >= 16<<10 {
		var z bytes.Buffer
		// One compressor, kept with the segment: a new one costs its
		// tables, 0.4 to 0.7 ms here, most of a change's cost when it was
		// made for each (a sync.Pool loses it at every collection).
		if w.gz == nil {
			w.gz, _ = gzip.NewWriterLevel(nil, gzip.BestSpeed)
		}
		zw := w.gz
		zw.Reset(&z)
		_, _ = zw.Write(data)
		_ = zw.Close()
		if z.Len() <= len(data)*3/4 {
			body, gz = z.Bytes(), true
		}
	}
	off := w.datSize
	n, err := w.dat.Write(body)
	w.datSize += int64(n)
	if err != nil {
		return event{}, false, err
	}
	w.blobs[h] = true
	return event{T: "blob", Hash: h, Off: off, Len: int64(len(body)), Gz: gz}, true, nil
}

// write appends events to this process's segment, with the bytes blobs
// before them (each stored unless the segment has it); fresh as writer
// says. r.mu is held.
func (r *Record) write(fresh bool, blobs []blob, events ...event) error {
	w, err := r.writer(fresh)
	if err != nil {
		return err
	}
	start := w.logSize + w.datSize
	defer func() { r.size += w.logSize + w.datSize - start }()
	var all []event
	for _, b := range blobs {
		e, stored, err := w.storeBlob(b)
		if err != nil {
			return err
		}
		if stored {
			all = append(all, e)
		}
	}
	return w.appendEvents(append(all, events...)...)
}

// refresh reads what the segments gained since the last look (this
// process's own too), and forgets the segments removed; r.mu is held.
func (r *Record) refresh() error {
	dir, err := r.rh.Open(logDir)
	if err != nil {
		return err
	}
	names, err := dir.Readdirnames(-1)
	_ = dir.Close()
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, n := range names {
		name, ok := strings.CutSuffix(n, ".log")
		if !ok || !validID(name) {
			continue
		}
		present[name] = true
		s := r.segs[name]
		if s == nil {
			s = &segment{name: name, blobs: map[string]blobAt{}}
			r.segs[name] = s
		}
		if err := r.readSegment(s); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for name := range r.segs {
		if !present[name] {
			r.dropSegment(name)
		}
	}
	return nil
}

// dropSegment forgets a segment no longer there, and its changes; r.mu
// is held.
func (r *Record) dropSegment(name string) {
	delete(r.segs, name)
	for id, e := range r.entries {
		if e.seg == name {
			delete(r.entries, id)
		}
	}
	r.sorted = nil
}

// deadLock takes the lock of segment name when its process is gone (the
// system let the lock go): dead says so, and the lock is then held until
// its file is closed. r.mu is held.
func (r *Record) deadLock(name string) (lock *os.File, dead bool) {
	lf, err := r.rh.OpenFile(logDir+"/"+name+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false
	}
	if ok, err := statedir.LockOf(lf).TryLock(); err != nil || !ok {
		_ = lf.Close() // alive: its changes are being made
		return nil, false
	}
	return lf, true
}

// readSegment reads s's log from where it was left.
func (r *Record) readSegment(s *segment) error {
	root := r.rh
	f, err := root.Open(logDir + "/" + s.name + ".log")
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	s.size = fi.Size()
	if dfi, err := root.Lstat(logDir + "/" + s.name + ".dat"); err == nil {
		s.size += dfi.Size()
	}
	if fi.Size() <= s.off {
		return nil
	}
	tail := make([]byte, fi.Size()-s.off)
	n, err := f.ReadAt(tail, s.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	tail = tail[:n]
	for {
		i := bytes.IndexByte(tail, '\n')
		if i < 0 {
			// A line being written (or cut off by a crash): read again
			// next time, from its start.
			return nil
		}
		line := tail[:i]
		tail = tail[i+1:]
		s.off += int64(i + 1)
		if id, ok := partID(line); ok {
			// Most parts are followed by their change's line: a part is
			// read whole only if a dead process left it pending.
			if en := r.entry(s, id); en.c == nil {
				en.raw = append(en.raw, slices.Clone(line))
			}
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			r.damaged++
			continue
		}
		r.apply(s, e)
	}
}

// partPrefix starts every part's line (json.Marshal keeps event's field
// order), with the change's id after it.
const partPrefix = `{"t":"part","change":{"id":"`

// partID is the change id of a part's line.
func partID(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(partPrefix))
	if !ok || len(rest) < len(newID(time.Time{})) {
		return "", false
	}
	id := string(rest[:len(newID(time.Time{}))])
	return id, validID(id)
}

// entry is the entry of change id, made in segment s if new.
func (r *Record) entry(s *segment, id string) *entry {
	en := r.entries[id]
	if en == nil {
		en = &entry{seg: s.name}
		r.entries[id] = en
		r.sorted = nil
	}
	return en
}

// unfinished is whether the change's process left it with parts recorded
// and neither kept nor dropped.
func (en *entry) unfinished() bool { return en.c == nil && !en.dropped && len(en.raw) > 0 }

// parts are en's parts pending, read from their lines.
func (en *entry) parts() (note.VaultChange, []note.ChangePart, bool) {
	var head note.VaultChange
	var parts []note.ChangePart
	for _, line := range en.raw {
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Change == nil || e.Part == nil {
			return head, nil, false
		}
		head = *e.Change
		parts = append(parts, *e.Part)
	}
	return head, parts, len(parts) > 0
}

// apply is one event of segment s.
func (r *Record) apply(s *segment, e event) {
	switch {
	case e.T == "blob" && len(e.Hash) == 64:
		s.blobs[e.Hash] = blobAt{off: e.Off, n: e.Len, gz: e.Gz}
	case e.T == "change" && e.Change != nil && validID(e.Change.ID):
		en := r.entry(s, e.Change.ID)
		c := *e.Change
		en.c, en.raw, en.seg = &c, nil, s.name
		r.sorted = nil
		if c.Time.After(s.newest) {
			s.newest = c.Time
		}
	case e.T == "drop" && validID(e.ID):
		r.entry(s, e.ID).dropped = true
	case e.T == "seal" && validID(e.Seg):
		if sealed := r.segs[e.Seg]; sealed != nil {
			sealed.sealed = true
		} else {
			r.segs[e.Seg] = &segment{name: e.Seg, blobs: map[string]blobAt{}, sealed: true}
		}
	default:
		r.damaged++
	}
}

// blob reads the bytes h from whichever segment holds them; r.mu is held.
func (r *Record) blob(h string) ([]byte, error) {
	for _, s := range r.segs {
		at, ok := s.blobs[h]
		if !ok {
			continue
		}
		f, err := r.rh.Open(logDir + "/" + s.name + ".dat")
		if err != nil {
			continue
		}
		body := make([]byte, at.n)
		_, err = f.ReadAt(body, at.off)
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("the bytes %s in the change record are damaged: %v", h[:12], err)
		}
		data := body
		if at.gz {
			z, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				return nil, fmt.Errorf("the bytes %s in the change record are damaged: %v", h[:12], err)
			}
			if data, err = io.ReadAll(z); err != nil {
				return nil, fmt.Errorf("the bytes %s in the change record are damaged: %v", h[:12], err)
			}
		}
		if Hash(data) != h {
			return nil, fmt.Errorf("the bytes %s in the change record are damaged (their hash differs)", h[:12])
		}
		return data, nil
	}
	return nil, fmt.Errorf("the bytes %s are not in the change record (forgotten, or removed by hand)", h[:12])
}

// made are the changes made, oldest first; r.mu is held.
func (r *Record) made() []*note.VaultChange {
	if r.sorted == nil {
		r.sorted = make([]*note.VaultChange, 0, len(r.entries))
		for _, e := range r.entries {
			if e.c != nil {
				r.sorted = append(r.sorted, e.c)
			}
		}
		slices.SortFunc(r.sorted, func(a, b *note.VaultChange) int { return strings.Compare(a.ID, b.ID) })
	}
	return r.sorted
}
