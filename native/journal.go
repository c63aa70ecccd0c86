package native

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/native/statedir"
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
const journalName = "journal"

// journalDir is journalName's path in the vault, for messages.
const journalDir = StateDir + "/" + journalName

// Journal operations.
const (
	opMove          = "move"
	opRenameTag     = "rename_tag"
	opRenameHeading = "rename_heading"
)

// intent is one journal entry: what a vault-wide edit set out to do.
type intent struct {
	Op      string    `json:"op"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Seq orders the entries: recovery replays them in the order their
	// edits began (startJournal), whatever the clock said.
	Seq int64 `json:"seq,omitempty"`
	// Moves maps the files moved (old path → new path).
	Moves map[string]string `json:"moves,omitempty"`
	// From, To and Paths are a tag rename: the notes it changes.
	From  string   `json:"from,omitempty"`
	To    string   `json:"to,omitempty"`
	Paths []string `json:"paths,omitempty"`
	// Heading is a heading's rename: the note, its outline before, the
	// heading and its new text, and the notes whose links follow.
	Heading *note.HeadingPlan `json:"heading,omitempty"`
	// Proc names the run of the program that wrote the entry
	// (thisProcess): an entry of this run found unfinished is an edit of
	// its own that stopped part-way on an error, not a crash's. A PID
	// alone cannot tell: PIDs are reused, and on Windows nothing is left
	// to ask of a process that is gone.
	Proc string `json:"proc,omitempty"`
	// MAC signs the rest with this user's journal key (journalkey.go).
	MAC string `json:"mac,omitempty"`
}

// thisProcess is drawn once per run of the program: journal entries carry
// it (intent.Proc). Random, it is never another run's, whatever the PID.
var thisProcess = rand.Text()[:16]

// Bounds of what recovery reads: an entry or log over them is left alone.
const (
	maxEntry    = 32 << 20 // a tag rename of about 400,000 notes
	maxEntryLog = 64 << 20
)

// journal is a vault-wide edit's entry while the edit runs. Its log
// records, before each note is replaced, the note's content hashes before
// and after, so that recovery can tell the notes done from those to do
// (a tag rename applied twice is not always the same as once:
// proj → proj/sub).
type journal struct {
	v    *Engine
	name string // the entry's file, without extension, in StateDir
	log  *os.File
}

// startJournal records in before anything changes. It is called with the
// write lock held.
func (v *Engine) startJournal(in intent) (*journal, error) {
	in.Host, _ = os.Hostname()
	in.PID = os.Getpid()
	in.Proc = thisProcess
	in.Started = time.Now().UTC()
	st := v.state()
	if err := st.Mkdir(journalName, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, journalError(err)
	}
	in.Seq = nextSeq(st, in.Started)
	in.MAC = v.journal.sign(in)
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s/%020d-%s", journalName, in.Seq, rand.Text()[:8])
	log, err := st.OpenFile(name+".log", os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, journalError(err)
	}
	if err := st.Create(name+".json", data, 0o644); err != nil {
		_ = log.Close()
		_ = st.Remove(name + ".log")
		return nil, journalError(err)
	}
	return &journal{v: v, name: name, log: log}, nil
}

// nextSeq is the sequence of an entry begun at now: after every entry
// waiting in the journal (the write lock is held, so no other process
// adds one meanwhile), and otherwise the time in nanoseconds, so that an
// entry of a later edit sorts after one a dead process left even when the
// clock went back.
func nextSeq(st *statedir.Dir, now time.Time) int64 {
	seq := now.UnixNano()
	entries, _ := st.ReadDir(journalName)
	for _, e := range entries {
		if n, ok := entrySeq(e.Name()); ok && n >= seq {
			seq = n + 1
		}
	}
	return seq
}

// entrySeq is the sequence an entry's file name starts with; names of
// older versions (a time to the second) have none.
func entrySeq(name string) (int64, bool) {
	digits, _, ok := strings.Cut(name, "-")
	if !ok || len(digits) != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

func journalError(err error) error {
	if k, ok := errors.Resource(err); ok {
		return errors.E(k, "cannot record the edit in the vault's journal (%s): %v; nothing was changed", journalDir, unwrapPath(err)).WithCause(err).WithHint(errors.From(err).Hint)
	}
	return errors.E(errors.PermissionDenied, "cannot record the edit in the vault's journal (%s): %v; nothing was changed", journalDir, pathErrorText(err)).WithCause(err).
		WithHint(stateHint(err, "The server keeps its lock and journal in "+StateDir+" at the vault's top; the user running it must be able to write there."))
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
// its answer says what was done). An edit that could not change every
// note it meant to (a full disk, no descriptors left, a note that kept
// changing) keeps its entry instead, so that the next write, or the next
// start, completes it.
func (j *journal) finish(complete bool) {
	_ = j.log.Close()
	if complete {
		j.remove()
	}
}

// journalPending reports whether a journal entry may be waiting. It costs
// one stat: the folder is removed when its last entry goes. (A link there
// is refused when the journal is read, through the state folder's handle.)
func (v *Engine) journalPending() bool {
	_, err := v.root.Lstat(journalDir)
	return err == nil
}

// Recovered is what Recover found and did.
type Recovered struct {
	// Completed and RolledBack describe the interrupted edits, one
	// sentence each. Resumed says the same of this process's own edits
	// that had stopped part-way on an error (no crash): finished now.
	Completed, RolledBack, Resumed, LeftAlone []string
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
		sweep := !v.swept
		v.swept = true
		rctx, end := v.recovering(ctx)
		v.recovered = v.recoverLocked(rctx, sweep)
		end()
		logRecovered(v.logger, v.recovered)
	}
	return release, nil
}

// remove deletes the entry's files, and the journal folder once empty.
func (j *journal) remove() {
	st := j.v.state()
	_ = st.Remove(j.name + ".json")
	_ = st.Remove(j.name + ".log")
	_ = st.Remove(journalName) // only when empty
}

// renameTagIn renames a tag in one note, recording it in j when set. It
// is called with the write lock held.
func (v *Engine) renameTagIn(ctx context.Context, p, from, to string, j *journal) (int, error) {
	uses := 0
	var change atomicfile.Change = func(cur []byte) ([]byte, error) {
		r, n, err := patch.RenameTag(cur, from, to)
		uses = n
		return r.Content, err
	}
	if j != nil {
		change = j.noting(p, change)
	}
	res, err := v.update(ctx, p, v.RealPath(p), change)
	if err != nil {
		return 0, err
	}
	if bytes.Equal(res.Old, res.New) {
		return 0, nil
	}
	v.replay.noted(p, res.Old, res.New)
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

// logRecovered says in the log what recovery did.
func logRecovered(logger *slog.Logger, r Recovered) {
	for _, s := range r.Completed {
		logger.Warn("an edit interrupted by a crash was completed", "what", s)
	}
	for _, s := range r.RolledBack {
		logger.Warn("an edit interrupted by a crash was rolled back", "what", s)
	}
	for _, s := range r.Resumed {
		logger.Warn("an edit this process had stopped part-way was finished", "what", s)
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
	// A cancelled rename answers what it did and leaves no entry; one
	// that could not change a note keeps it, to be completed later.
	w := v.eachNote(ctx, paths, func(p string) (int, error) { return v.renameTagIn(ctx, p, from, to, j) })
	j.finish(w.complete)
	out.Notes, out.Uses, out.Paths, out.Failed = w.notes, w.uses, w.paths, w.failed
	if w.err != nil {
		return out, w.err
	}
	if w.short != nil {
		return out, partial(w.short, fmt.Sprintf("the tag %s was renamed to %s in %d notes", from, to, out.Notes), w.failedPaths())
	}
	return out, nil
}

// wide is what a vault-wide edit did to its notes (eachNote).
type wide struct {
	notes, uses int
	paths       []string // the notes changed, at most note.MaxListed
	failed      []note.FailedNote
	// complete is false when a note could not be changed: the journal
	// entry stays, to be completed later. short is the first failure for
	// want of a resource (a full disk), err the context's when cancelled.
	complete   bool
	short, err error
}

// eachNote applies apply (which says how many uses it changed) to each of
// paths, the write lock held, as every journaled vault-wide edit does: a
// note that keeps changing, or cannot be written, is listed in failed and
// the others are changed; a cancelled call stops between notes.
func (v *Engine) eachNote(ctx context.Context, paths []string, apply func(p string) (int, error)) wide {
	w := wide{paths: []string{}, complete: true}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			w.err = err
			return w
		}
		n, err := apply(p)
		switch {
		case errors.Is(err, atomicfile.ErrBusy):
			w.complete = false
			w.failed = append(w.failed, note.FailedNote{Path: p, Message: busy(err, p).Message})
		case err != nil:
			w.complete = false
			if _, ok := errors.Resource(err); ok && w.short == nil {
				w.short = err
			}
			w.failed = append(w.failed, note.FailedNote{Path: p, Message: errors.From(FileError(err, p)).Message})
		case n > 0:
			w.notes++
			w.uses += n
			if len(w.paths) < note.MaxListed {
				w.paths = append(w.paths, p)
			}
		}
	}
	return w
}

// failedPaths are the paths of the notes that failed.
func (w wide) failedPaths() []string {
	out := make([]string, len(w.failed))
	for i, f := range w.failed {
		out[i] = f.Path
	}
	return out
}

// partial is the error of a vault-wide edit cut short by the machine
// (errors.Resource): what was done, the notes left (data.failed), and
// that the edit is completed at the next start or write.
func partial(cause error, done string, failed []string) error {
	k, _ := errors.Resource(cause)
	return errors.E(k, "%s, but %d notes could not be changed (%v); they are changed at the server's next start or write", done, len(failed), unwrapPath(cause)).
		With("failed", failed).WithCause(cause).WithHint(errors.From(cause).Hint)
}

// recovering is the context of recovery's writes: never cancelled (a
// vault-wide edit half done is completed whatever the call says), and
// with a change of its own, not the calling tool's ("obsidian-mcp
// recovery", which end closes).
func (v *Engine) recovering(ctx context.Context) (context.Context, func()) {
	ctx = changes.With(context.WithoutCancel(ctx), nil)
	if v.record == nil {
		return ctx, func() {}
	}
	rec := v.record()
	if rec == nil {
		return ctx, func() {}
	}
	p := rec.Begin("obsidian-mcp recovery", "obsidian-mcp")
	return changes.With(ctx, p), func() { p.End() }
}
