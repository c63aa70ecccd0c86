package native

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/native/statedir"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// replayLog is what a recovery under way has itself changed: for each
// note, the content hash it left → the hash the note had before. A later
// entry's recovery looks through it, so that an earlier entry's own
// replay is not taken for another program's edit. (A move and a tag rename
// both cut short: the move's recovery rewrote links in the notes the tag
// rename had done, and the rename's recovery, finding neither its before
// nor its after hash, left 1,978 of 2,000 notes with the old tag.)
type replayLog struct {
	mu     sync.Mutex
	active bool
	back   map[string]map[string]string
}

func (r *replayLog) start() {
	r.mu.Lock()
	r.active, r.back = true, map[string]map[string]string{}
	r.mu.Unlock()
}

func (r *replayLog) stop() {
	r.mu.Lock()
	r.active, r.back = false, nil
	r.mu.Unlock()
}

// noted records that the recovery changed p from old to new; outside a
// recovery it does nothing. Safe for concurrent use (relinking works on
// several notes at once).
func (r *replayLog) noted(p string, old, new []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active {
		return
	}
	if r.back[p] == nil {
		r.back[p] = map[string]string{}
	}
	r.back[p][note.ETag(new)] = note.ETag(old)
}

// was walks back from the note's hash now through the recovery's own
// changes, and answers the first of before or after met, or now itself
// when neither is.
func (r *replayLog) was(p, now, before, after string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := now
	for range len(r.back[p]) + 1 {
		if h == before || h == after {
			return h
		}
		prev, ok := r.back[p][h]
		if !ok {
			break
		}
		h = prev
	}
	return now
}

// reportsName, in StateDir, holds what recoveries left for the person to
// check: a file per entry, until they remove it. doctor lists them.
const reportsName = "reports"

// report keeps the sentence recovery said of the entry name in a report,
// and says it in the log too (the caller does).
func (v *Engine) report(name string, in intent, said string) error {
	st := v.state()
	if err := st.Mkdir(reportsName, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	base := strings.TrimPrefix(name, journalName+"/")
	text := fmt.Sprintf("%s\n%s\n\nThe server finished this edit after a crash at %s, and left the notes named above as they were. Check them, then remove this file.\n",
		in.Op, said, time.Now().UTC().Format(time.RFC3339))
	err := st.Create(reportsName+"/"+base+".txt", []byte(text), 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// Pending is what waits in the state folder for a person: journal entries
// not finished (kept for the next start, or left alone as not ours), and
// reports of notes a recovery left to check. doctor shows it.
type Pending struct {
	Entries []string // the entries' paths in the vault, with their edit's kind
	Reports []Report
}

// Report is one recovery's report: its path in the vault and its text.
type Report struct {
	Path, Text string
}

// maxReports bounds what Pending reads.
const maxReports = 20

// Pending reads what waits in the state folder, through its handle,
// without making it or taking the write lock.
func (v *Engine) Pending() Pending {
	var p Pending
	st, err := statedir.Open(v.dir, StateDir, false)
	if err != nil {
		return p
	}
	defer st.Close()
	entries, _ := st.ReadDir(journalName)
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		var in intent
		data, err := st.ReadFile(journalName+"/"+e.Name(), maxEntry)
		if err == nil {
			err = json.Unmarshal(data, &in)
		}
		what := in.Op
		if err != nil {
			what = "unreadable"
		}
		p.Entries = append(p.Entries, fmt.Sprintf("%s/%s/%s.json (%s)", StateDir, journalName, stem, what))
	}
	reports, _ := st.ReadDir(reportsName)
	for _, e := range reports {
		if len(p.Reports) == maxReports || !e.Type().IsRegular() {
			continue
		}
		data, err := st.ReadFile(reportsName+"/"+e.Name(), 64<<10)
		if err == nil {
			p.Reports = append(p.Reports, Report{Path: StateDir + "/" + reportsName + "/" + e.Name(), Text: string(data)})
		}
	}
	return p
}
