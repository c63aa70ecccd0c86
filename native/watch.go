package native

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// sentinelPatience bounds how long Changed waits for its own sentinel
// event. The event is the signal (it is queued behind every change made
// before the call), so Changed waits for it and not for a clock; the bound
// is a backstop against an event lost without an error, and when it runs
// out the cost is one sweep and a fresh watch, never the watcher.
const sentinelPatience = 10 * time.Second

// watcher reports which files of the vault changed, so that the index
// re-stats those instead of every note (10,000 stats cost ~15 ms, more than
// a whole search).
//
// Completeness rests on one property of Linux's inotify: all watches of a
// watcher share one queue, in order. Changed writes to a sentinel file
// watched by the same watcher and waits for that event: any change that
// completed before the call is queued ahead of it, so it has been seen.
// The sentinels are two temporary files, unlinked as soon as they are
// watched and kept open, so nothing is left on disk however the process
// ends; calls alternate between them, because inotify merges an event
// with an identical one still unread, and an alternation never queues two
// identical sentinel events in a row. Elsewhere (kqueue needs a descriptor
// per file; Windows watches each folder on its own) there is no such
// order, and the index keeps its full stat sweep.
//
// Any doubt (a queue overflow, an error, a folder that could not be
// watched, a sentinel that never came) makes that call's answer
// incomplete, so the index sweeps once, and replaces the inotify instance
// with a fresh one before answering: what changes after the answer is
// seen by the new watch, what changed before by the sweep, and the next
// call is trusted again.
type watcher struct {
	dir string // the vault folder
	// patience is sentinelPatience; tests shorten it to make a sentinel
	// late.
	patience time.Duration

	mu     sync.Mutex
	cond   *sync.Cond
	cur    *watch // nil when the last renewal failed: the next call tries again
	closed bool
}

// watch is one inotify instance with its sentinels and what it has seen;
// its fields are guarded by the watcher's mu.
type watch struct {
	w         *fsnotify.Watcher
	sentinels [2]*os.File
	names     [2]string // their names when watched

	changed map[string]bool
	seen    [2]int // sentinel events seen, per sentinel
	writes  [2]int // sentinel writes, per sentinel
	sent    int    // sentinel writes in all
	// stale is set when the counts can no longer be trusted (an overflow,
	// an error, a folder left unwatched, a sentinel that never came): the
	// watch is replaced.
	stale bool
}

// startWatcher watches dir and its folders, or returns nil where the
// guarantee above does not hold or watching fails.
func startWatcher(dir string) *watcher {
	if runtime.GOOS != "linux" || fallbackBuild {
		return nil
	}
	w := &watcher{dir: filepath.Clean(dir), patience: sentinelPatience}
	w.cond = sync.NewCond(&w.mu)
	w.cur = w.open()
	if w.cur == nil {
		return nil
	}
	return w
}

// open starts a watch of the whole vault, or returns nil.
func (w *watcher) open() *watch {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	c := &watch{w: fw, changed: map[string]bool{}}
	for i := range c.sentinels {
		f, err := os.CreateTemp("", "obsidian-mcp-watch-")
		if err != nil {
			c.close()
			return nil
		}
		c.sentinels[i], c.names[i] = f, f.Name()
		err = fw.Add(f.Name())
		_ = os.Remove(f.Name())
		if err != nil {
			c.close()
			return nil
		}
	}
	if !c.addTree(w.dir, w.dir) {
		c.close()
		return nil
	}
	go w.run(c)
	return c
}

// renew replaces the current watch with a fresh one; w.mu is held. The
// new watch is running before the caller's sweep begins.
func (w *watcher) renew() {
	if w.cur != nil {
		w.cur.close()
	}
	w.cur = w.open()
	w.cond.Broadcast() // a call waiting on the old watch gives up on it
}

// addTree watches folder and every non-hidden folder below it.
func (c *watch) addTree(root, folder string) bool {
	ok := true
	_ = filepath.WalkDir(folder, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			ok = false
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if c.w.Add(p) != nil {
			ok = false
		}
		return nil
	})
	return ok
}

// run takes c's events until c is closed.
func (w *watcher) run(c *watch) {
	for {
		select {
		case ev, open := <-c.w.Events:
			if !open {
				return
			}
			w.event(c, ev)
		case _, open := <-c.w.Errors:
			if !open {
				return
			}
			w.doubt(c) // an overflow, or worse: trust nothing until renewed
		}
	}
}

// doubt marks c stale and wakes a Changed waiting on it.
func (w *watcher) doubt(c *watch) {
	w.mu.Lock()
	c.stale = true
	w.cond.Broadcast()
	w.mu.Unlock()
}

func (w *watcher) event(c *watch, ev fsnotify.Event) {
	for i, name := range c.names {
		if ev.Name == name {
			if ev.Has(fsnotify.Write) {
				w.mu.Lock()
				c.seen[i]++
				w.cond.Broadcast()
				w.mu.Unlock()
			}
			return
		}
	}
	rel, err := filepath.Rel(w.dir, ev.Name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !strings.HasPrefix(fi.Name(), ".") {
			// A new folder: watch it, then count everything already in it
			// as changed, since it may have filled before the watch began.
			if !c.addTree(w.dir, ev.Name) {
				w.doubt(c) // a folder left unwatched stays so: renew
			}
			_ = filepath.WalkDir(ev.Name, func(p string, _ os.DirEntry, _ error) error {
				if r, err := filepath.Rel(w.dir, p); err == nil {
					w.mark(c, filepath.ToSlash(r))
				}
				return nil
			})
		}
	}
	w.mark(c, filepath.ToSlash(rel))
}

func (w *watcher) mark(c *watch, rel string) {
	w.mu.Lock()
	c.changed[rel] = true
	w.mu.Unlock()
}

// Changed returns the vault paths that may have changed since the last
// call, and whether that list is complete. An incomplete answer asks the
// caller to check every file; the watch is renewed before it is given.
func (w *watcher) Changed() ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, false
	}
	c := w.cur
	if c == nil || c.stale {
		w.renew()
		return nil, false
	}
	c.sent++
	k := c.sent % 2
	c.writes[k]++
	want := c.writes[k]
	if _, err := c.sentinels[k].WriteAt([]byte{byte(c.sent)}, 0); err != nil {
		w.renew()
		return nil, false
	}
	patience := w.patience
	deadline := time.AfterFunc(patience, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer deadline.Stop()
	start := time.Now()
	for c.seen[k] < want && !c.stale && !w.closed && w.cur == c && time.Since(start) < patience {
		w.cond.Wait()
	}
	if w.closed || w.cur != c {
		return nil, false // closed, or renewed by a call beside this one
	}
	if c.stale || c.seen[k] < want {
		w.renew()
		return nil, false
	}
	out := make([]string, 0, len(c.changed))
	for p := range c.changed {
		out = append(out, p)
	}
	clear(c.changed)
	return out, true
}

func (w *watcher) close() {
	w.mu.Lock()
	w.closed = true
	if w.cur != nil {
		w.cur.close()
	}
	w.cond.Broadcast()
	w.mu.Unlock()
}

func (c *watch) close() {
	_ = c.w.Close()
	for _, f := range c.sentinels {
		if f != nil {
			_ = f.Close()
		}
	}
}
