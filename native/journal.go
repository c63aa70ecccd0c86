package native

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

// journalDir holds the intent of every vault-wide edit in progress: a
// move's or rename's link rewriting, a tag's rename. Each is written
// before the first file changes and removed after the last, so one found
// by a process that holds the write lock was left by a process that died
// mid-way (the lock is held throughout, and the system releases it when
// its holder dies); that process completes it, or rolls it back when
// nothing had changed yet, and says so in its log.
const journalDir = StateDir + "/journal"

// Journal operations.
const (
	opMove      = "move"
	opRenameTag = "rename_tag"
)

// intent is one journal entry: what a vault-wide edit set out to do.
type intent struct {
	Op      string    `json:"op"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Moves maps the files moved (old path → new path).
	Moves map[string]string `json:"moves,omitempty"`
	// From, To and Paths are a tag rename: the notes it changes.
	From  string   `json:"from,omitempty"`
	To    string   `json:"to,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

// journal is a vault-wide edit's entry while the edit runs. Its log
// records, before each note is replaced, the note's content hashes before
// and after, so that recovery can tell the notes done from those to do
// (a tag rename applied twice is not always the same as once:
// proj → proj/sub).
type journal struct {
	v    *Engine
	name string // the entry's file, without extension, under journalDir
	log  *os.File
}

// startJournal records in before anything changes. It is called with the
// write lock held.
func (v *Engine) startJournal(in intent) (*journal, error) {
	in.Host, _ = os.Hostname()
	in.PID = os.Getpid()
	in.Started = time.Now().UTC()
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if err := v.root.MkdirAll(journalDir, 0o755); err != nil {
		return nil, journalError(err)
	}
	name := journalDir + "/" + in.Started.Format("20060102T150405") + "-" + rand.Text()[:8]
	log, err := v.root.OpenFile(name+".log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, journalError(err)
	}
	if err := atomicfile.Create(v.root, name+".json", data); err != nil {
		_ = log.Close()
		_ = v.root.Remove(name + ".log")
		return nil, journalError(err)
	}
	return &journal{v: v, name: name, log: log}, nil
}

func journalError(err error) error {
	return errors.E(errors.PermissionDenied, "cannot record the edit in the vault's journal (%s): %v; nothing was changed", journalDir, unwrapPath(err)).WithCause(err).
		WithHint("The server keeps its lock and journal in " + StateDir + " at the vault's top; the user running it must be able to write there.")
}

// noting wraps a note's change so that the journal records the note's
// hashes before and after each time it is computed, before the note is
// replaced.
func (j *journal) noting(p string, change atomicfile.Change) atomicfile.Change {
	return func(cur []byte) ([]byte, error) {
		next, err := change(cur)
		if err == nil && !bytes.Equal(next, cur) {
			_, _ = fmt.Fprintf(j.log, "%s %s %s\n", note.ETag(cur), note.ETag(next), p)
		}
		return next, err
	}
}

// finish removes the entry: the edit is complete (or was cancelled, and
// its answer says what was done).
func (j *journal) finish() {
	_ = j.log.Close()
	j.remove()
}

// journalPending reports whether a journal entry may be waiting. It costs
// one stat: the folder is removed when its last entry goes.
func (v *Engine) journalPending() bool {
	_, err := v.root.Lstat(journalDir)
	return err == nil
}

// Recovered is what Recover found and did.
type Recovered struct {
	// Completed and RolledBack describe the interrupted edits, one
	// sentence each.
	Completed, RolledBack, LeftAlone []string
	// Temps counts the temporary files of interrupted writes removed.
	Temps int
}

// Recover completes or rolls back the vault-wide edits a process left
// unfinished when it died (see journalDir), and then removes the temporary
// files interrupted writes left behind. The server calls it at start
// unless it is read-only; it costs one stat when no edit was left
// unfinished. The write lock does the same at this process's first write
// and whenever it finds a journal entry, so a server that keeps running
// repairs what a crashed neighbour left.
func (v *Engine) Recover(ctx context.Context) (Recovered, error) {
	if !v.journalPending() {
		// Nothing was left half done: start-up stays one stat, whatever
		// the vault's size, and merely starting a server leaves no folder
		// in the vault. Temporary files of killed writes go at the first
		// write (writing), which lists the vault then anyway.
		return Recovered{}, nil
	}
	release, err := v.writing(ctx)
	if err != nil {
		return Recovered{}, err
	}
	defer release()
	return v.recovered, nil
}

// writing takes the write lock for a write. The first time in this
// process, and whenever a journal entry is waiting, it first repairs what
// a dead process left (recoverLocked), so no write builds on a half-done
// vault-wide edit.
func (v *Engine) writing(ctx context.Context) (release func(), err error) {
	release, err = v.lock.acquire(ctx, v)
	if err != nil {
		return nil, err
	}
	if !v.swept || v.journalPending() {
		v.swept = true
		v.recovered = v.recoverLocked(ctx)
		logRecovered(v.logger, v.recovered)
	}
	return release, nil
}

// recoverLocked does Recover's work with the write lock held.
func (v *Engine) recoverLocked(ctx context.Context) Recovered {
	var r Recovered
	r.Temps = v.removeTemps()
	entries, err := fs.ReadDir(v.rootFS(), journalDir)
	if err != nil {
		return r
	}
	host, _ := os.Hostname()
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		name = journalDir + "/" + name
		data, err := v.root.ReadFile(name + ".json")
		var in intent
		if err == nil {
			err = json.Unmarshal(data, &in)
		}
		if err != nil {
			r.LeftAlone = append(r.LeftAlone, fmt.Sprintf("%s.json cannot be read (%v); remove it once the vault is checked", name, err))
			continue
		}
		if in.Host != host {
			// Copied here by a sync client: its edit ran on that machine,
			// which may still be running it.
			r.LeftAlone = append(r.LeftAlone, fmt.Sprintf("%s.json is an edit on another machine (%s); left for that machine's server", name, in.Host))
			continue
		}
		done, rolledBack := v.resume(ctx, name, in)
		if rolledBack {
			r.RolledBack = append(r.RolledBack, done)
		} else {
			r.Completed = append(r.Completed, done)
		}
		(&journal{v: v, name: name}).remove()
	}
	return r
}

// remove deletes the entry's files, and the journal folder once empty.
func (j *journal) remove() {
	_ = j.v.root.Remove(j.name + ".json")
	_ = j.v.root.Remove(j.name + ".log")
	_ = j.v.root.Remove(journalDir) // only when empty
}

// resume completes the interrupted edit in, or rolls it back when it had
// not started, and says which in a sentence.
func (v *Engine) resume(ctx context.Context, name string, in intent) (string, bool) {
	since := fmt.Sprintf("started %s by process %d", in.Started.Format(time.RFC3339), in.PID)
	switch in.Op {
	case opMove:
		files, err := v.Files()
		if err != nil {
			return fmt.Sprintf("the move %v (%s) could not be resumed: %v", in.Moves, since, err), false
		}
		// The list before the move: the moved files at their old paths.
		back := map[string]string{}
		pending := map[string]string{}
		for from, to := range in.Moves {
			switch {
			case v.taken(to) && !v.taken(from):
				back[to] = from
				pending[from] = to
			case v.taken(from) && !v.taken(to):
				// Not moved yet: nothing to repair.
			default:
				return fmt.Sprintf("the move of %s to %s (%s) was left as it is: both or neither path exist now", from, to, since), false
			}
		}
		if len(pending) == 0 {
			return fmt.Sprintf("the move %v (%s) had not happened yet; nothing was changed", in.Moves, since), true
		}
		before := make([]string, len(files))
		for i, f := range files {
			before[i] = f
			if from, ok := back[f]; ok {
				before[i] = from
			}
		}
		changes := v.retarget(before, pending)
		return fmt.Sprintf("completed the move %v (%s): %d links in %d notes rewritten now, %d notes could not be changed %v",
			pending, since, changes.Links, changes.Notes, len(changes.Failed), changes.Failed), false
	case opRenameTag:
		logged := readIntentLog(v, name+".log")
		notes, uses, skipped := 0, 0, []string{}
		for _, p := range in.Paths {
			cur, err := v.root.ReadFile(v.RealPath(p))
			if err != nil {
				continue // gone since
			}
			if l, ok := logged[p]; ok {
				switch note.ETag(cur) {
				case l.after:
					continue // done before the crash
				case l.before:
				default:
					// Written and then changed by another program, or
					// changed before it was written: applying the rename
					// again could rename a renamed tag (proj → proj/sub).
					skipped = append(skipped, p)
					continue
				}
			}
			n, err := v.renameTagIn(p, in.From, in.To, nil)
			if err == nil && n > 0 {
				notes++
				uses += n
			}
		}
		return fmt.Sprintf("completed the rename of tag %s to %s (%s): %d uses in %d notes renamed now; left for you to check, changed by another program since: %v",
			in.From, in.To, since, uses, notes, skipped), false
	}
	return fmt.Sprintf("an edit of a kind this version does not know (%q, %s) was left as it is", in.Op, since), false
}

// hashes is one note's line in a journal's log.
type hashes struct{ before, after string }

// readIntentLog reads a journal's log: each note's last line wins.
func readIntentLog(v *Engine, name string) map[string]hashes {
	out := map[string]hashes{}
	data, err := v.root.ReadFile(name)
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		before, rest, ok1 := strings.Cut(sc.Text(), " ")
		after, p, ok2 := strings.Cut(rest, " ")
		if ok1 && ok2 {
			out[p] = hashes{before, after}
		}
	}
	return out
}

// renameTagIn renames a tag in one note, recording it in j when set. It
// is called with the write lock held.
func (v *Engine) renameTagIn(p, from, to string, j *journal) (int, error) {
	uses := 0
	var change atomicfile.Change = func(cur []byte) ([]byte, error) {
		r, n, err := patch.RenameTag(cur, from, to)
		uses = n
		return r.Content, err
	}
	if j != nil {
		change = j.noting(p, change)
	}
	res, err := atomicfile.UpdateKnown(v.root, v.RealPath(p), change, &v.published)
	if err != nil {
		return 0, err
	}
	if bytes.Equal(res.Old, res.New) {
		return 0, nil
	}
	return uses, nil
}

// tempName matches the temporary files atomicfile writes beside a note
// (".<name>.tmp-" and 12 base32 characters).
var tempName = regexp.MustCompile(`^\..+\.tmp-[A-Z2-7]{12}$`)

// removeTemps removes the temporary files of writes that were cut off (a
// killed process) from every folder of the vault, as the listing last saw
// them (readFolder notes them; Files reads again a folder that changed).
// It is called with the write lock held: every write makes and removes its
// temporary file under the lock, so none found then belongs to a write in
// progress.
func (v *Engine) removeTemps() int {
	if _, err := v.Files(); err != nil {
		return 0
	}
	v.list.mu.Lock()
	var temps []string
	for _, f := range v.list.dirs {
		temps = append(temps, f.temps...)
	}
	v.list.mu.Unlock()
	n := 0
	for _, p := range temps {
		if v.root.Remove(p) == nil {
			n++
		}
	}
	return n
}

// rootFS is the vault folder as an fs.FS, inside its os.Root.
func (v *Engine) rootFS() fs.FS { return v.root.FS() }

// logRecovered says in the log what recovery did.
func logRecovered(logger *slog.Logger, r Recovered) {
	for _, s := range r.Completed {
		logger.Warn("an edit interrupted by a crash was completed", "what", s)
	}
	for _, s := range r.RolledBack {
		logger.Warn("an edit interrupted by a crash was rolled back", "what", s)
	}
	for _, s := range r.LeftAlone {
		logger.Warn("an unfinished edit was left alone", "what", s)
	}
	if r.Temps > 0 {
		logger.Info("temporary files of interrupted writes removed", "count", r.Temps)
	}
}

// RenameTag renames tag from to to in the notes at paths (the caller has
// chosen them: the tagged notes it may change), as one journaled edit: a
// crash part way is completed at the next start. Each note is a
// compare-and-swap, so a note another program saves meanwhile is renamed
// in its new content, or, if it keeps changing, listed in Failed. A
// cancelled call stops between notes and answers what it did with the
// context's error.
func (v *Engine) RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error) {
	out := note.TagRename{Paths: []string{}}
	release, err := v.writing(ctx)
	if err != nil {
		return out, err
	}
	defer release()
	j, err := v.startJournal(intent{Op: opRenameTag, From: from, To: to, Paths: paths})
	if err != nil {
		return out, err
	}
	defer j.finish()
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		n, err := v.renameTagIn(p, from, to, j)
		switch {
		case errors.Is(err, atomicfile.ErrBusy):
			out.Failed = append(out.Failed, note.FailedNote{Path: p, Message: note.Busy(p).Message})
		case err != nil:
			out.Failed = append(out.Failed, note.FailedNote{Path: p, Message: errors.From(FileError(err, p)).Message})
		case n > 0:
			out.Notes++
			out.Uses += n
			if len(out.Paths) < note.MaxListed {
				out.Paths = append(out.Paths, p)
			}
		}
	}
	return out, nil
}
