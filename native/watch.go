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

// barrierWait bounds how long Changed waits for its own sentinel event;
// past it the watcher is not trusted for this call.
const barrierWait = 250 * time.Millisecond

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
// order, and the index keeps its full stat sweep. Any doubt (a queue
// overflow, an error, a folder that could not be watched, a sentinel late)
// makes Changed report itself incomplete, and the index sweeps.
type watcher struct {
	dir       string // the vault folder
	sentinels [2]*os.File
	names     [2]string // their names when watched
	w         *fsnotify.Watcher

	mu      sync.Mutex
	cond    *sync.Cond
	changed map[string]bool
	lost    bool   // an event may have been missed since the last Changed
	seen    [2]int // sentinel events seen, per sentinel
	writes  [2]int // sentinel writes, per sentinel
	sent    int    // sentinel writes in all
	// broken is set when a sentinel event did not come in time: counting
	// can no longer be trusted, so every later call is incomplete.
	broken bool
	closed bool
}

// startWatcher watches dir and its folders, or returns nil where the
// guarantee above does not hold or watching fails.
func startWatcher(dir string) *watcher {
	if runtime.GOOS != "linux" || fallbackBuild {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	w := &watcher{dir: filepath.Clean(dir), w: fw, changed: map[string]bool{}}
	w.cond = sync.NewCond(&w.mu)
	for i := range w.sentinels {
		f, err := os.CreateTemp("", "obsidian-mcp-watch-")
		if err != nil {
			w.close()
			return nil
		}
		w.sentinels[i], w.names[i] = f, f.Name()
		err = fw.Add(f.Name())
		_ = os.Remove(f.Name())
		if err != nil {
			w.close()
			return nil
		}
	}
	if !w.addTree(w.dir) {
		w.close()
		return nil
	}
	go w.run()
	return w
}

// addTree watches folder and every non-hidden folder below it.
func (w *watcher) addTree(folder string) bool {
	ok := true
	_ = filepath.WalkDir(folder, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			ok = false
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != w.dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if w.w.Add(p) != nil {
			ok = false
		}
		return nil
	})
	return ok
}

func (w *watcher) run() {
	for {
		select {
		case ev, open := <-w.w.Events:
			if !open {
				return
			}
			w.event(ev)
		case _, open := <-w.w.Errors:
			if !open {
				return
			}
			w.mu.Lock()
			w.lost = true // an overflow, or worse: trust nothing until swept
			w.mu.Unlock()
		}
	}
}

func (w *watcher) event(ev fsnotify.Event) {
	for i, name := range w.names {
		if ev.Name == name {
			if ev.Has(fsnotify.Write) {
				w.mu.Lock()
				w.seen[i]++
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
			if !w.addTree(ev.Name) {
				w.mu.Lock()
				w.lost = true
				w.mu.Unlock()
			}
			_ = filepath.WalkDir(ev.Name, func(p string, _ os.DirEntry, _ error) error {
				if r, err := filepath.Rel(w.dir, p); err == nil {
					w.mark(filepath.ToSlash(r))
				}
				return nil
			})
		}
	}
	w.mark(filepath.ToSlash(rel))
}

func (w *watcher) mark(rel string) {
	w.mu.Lock()
	w.changed[rel] = true
	w.mu.Unlock()
}

// Changed returns the vault paths that may have changed since the last
// call, and whether that list is complete. An incomplete answer asks the
// caller to check every file.
func (w *watcher) Changed() ([]string, bool) {
	w.mu.Lock()
	if w.closed || w.broken {
		w.mu.Unlock()
		return nil, false
	}
	w.sent++
	k := w.sent % 2
	w.writes[k]++
	want := w.writes[k]
	_, err := w.sentinels[k].WriteAt([]byte{byte(w.sent)}, 0)
	w.mu.Unlock()
	if err != nil {
		w.mu.Lock()
		w.broken = true
		w.mu.Unlock()
		return nil, false
	}
	deadline := time.AfterFunc(barrierWait, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer deadline.Stop()
	start := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.seen[k] < want && !w.closed && time.Since(start) < barrierWait {
		w.cond.Wait()
	}
	if w.seen[k] < want {
		w.broken = true
	}
	ok := !w.broken && !w.lost && !w.closed
	out := make([]string, 0, len(w.changed))
	for p := range w.changed {
		out = append(out, p)
	}
	clear(w.changed)
	w.lost = false
	return out, ok
}

func (w *watcher) close() {
	w.mu.Lock()
	w.closed = true
	w.cond.Broadcast()
	w.mu.Unlock()
	_ = w.w.Close()
	for _, f := range w.sentinels {
		if f != nil {
			_ = f.Close()
		}
	}
}
