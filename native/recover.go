package native

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

// Recovery: what the next process holding the write lock does with the
// journal entries a dead one left (journal.go), and the checks an entry
// must pass before anything of it is replayed.

// entryName matches the name startJournal gives an entry, without its
// extension: only such files of the journal are ever removed.
var entryName = regexp.MustCompile(`^([0-9]{8}T[0-9]{6}|[0-9]{20})-[A-Z2-7]{8}$`)

// recoverLocked does Recover's work with the write lock held. Temporary
// files are swept once per process (it lists the vault); the journal
// folder each time an entry waits there.
func (v *Engine) recoverLocked(ctx context.Context, sweep bool) Recovered {
	var r Recovered
	if sweep {
		r.Temps = v.removeTemps()
	}
	if sweep {
		v.makeParking()
		v.removeOldIndex()
	}
	st := v.state()
	entries, err := st.ReadDir(journalName)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			// A link, or a file: refused, and said, every time.
			r.LeftAlone = append(r.LeftAlone, fmt.Sprintf("the journal cannot be read (%s); nothing in it was replayed or removed", pathErrorText(err)))
		}
		return r
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	if v.leftAlone == nil {
		v.leftAlone = map[string]bool{}
	}
	type waiting struct {
		name string
		in   intent
	}
	var queue []waiting
	for _, e := range entries {
		base := e.Name()
		stem, isEntry := strings.CutSuffix(base, ".json")
		logStem, isLog := strings.CutSuffix(base, ".log")
		switch {
		case !e.Type().IsRegular():
			// Nothing of ours: a journal holds only files.
			continue
		case tempName.MatchString(base):
			// A temporary file of an entry being written by a process
			// that died: the lock is ours, so no live one writes here.
			_ = st.Remove(journalName + "/" + base)
			continue
		case isLog && entryName.MatchString(logStem) && !names[logStem+".json"]:
			// Torn: killed between the log and the entry (the entry is
			// written second), so nothing had changed yet.
			_ = st.Remove(journalName + "/" + base)
			continue
		case !isEntry:
			continue
		}
		name := journalName + "/" + stem
		if v.leftAlone[name] {
			continue
		}
		in, why := v.readIntent(name)
		if why != "" {
			v.leftAlone[name] = true
			r.LeftAlone = append(r.LeftAlone, fmt.Sprintf("%s/%s.json %s; left as it is (remove it once the vault is checked)", StateDir, name, why))
			continue
		}
		queue = append(queue, waiting{name, in})
	}
	// In the order the edits began: a later edit built on what an earlier
	// one had done, and its log's hashes are of notes as that left them.
	sort.SliceStable(queue, func(i, j int) bool {
		if queue[i].in.Seq != queue[j].in.Seq {
			return queue[i].in.Seq < queue[j].in.Seq
		}
		return queue[i].name < queue[j].name
	})
	v.replay.start()
	defer v.replay.stop()
	for _, w := range queue {
		done, rolledBack, complete, left := v.resume(ctx, w.name, w.in)
		switch {
		case w.in.Proc == thisProcess:
			r.Resumed = append(r.Resumed, done)
		case rolledBack:
			r.RolledBack = append(r.RolledBack, done)
		default:
			r.Completed = append(r.Completed, done)
		}
		if left {
			// Notes to check by hand: said in the log, and kept in a
			// report that doctor shows until the person removes it.
			if err := v.report(w.name, w.in, done); err != nil {
				r.LeftAlone = append(r.LeftAlone, fmt.Sprintf("%s/%s.json: its report could not be written (%v); kept", StateDir, w.name, err))
				v.leftAlone[w.name] = true
				continue
			}
		}
		if complete {
			(&journal{v: v, name: w.name}).remove()
		} else {
			// Tried again at the next start, not at every write.
			v.leftAlone[w.name] = true
		}
	}
	_ = st.Remove(journalName) // only when empty
	return r
}

// readIntent reads and checks the entry name (without ".json"). A reason
// is given for an entry that must not be replayed: unreadable, too big,
// not signed by this user's key (copied from another machine, or made by
// hand), or asking for what no edit of ours would.
func (v *Engine) readIntent(name string) (intent, string) {
	var in intent
	data, err := v.state().ReadFile(name+".json", maxEntry)
	if err != nil {
		return in, fmt.Sprintf("cannot be read (%v)", unwrapPath(err))
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Sprintf("cannot be read (%v)", err)
	}
	if host, _ := os.Hostname(); in.Host != host {
		// Copied here by a sync client: its edit ran on that machine,
		// which may still be running it.
		return in, fmt.Sprintf("is an edit on another machine (%s), left for that machine's server", in.Host)
	}
	if !v.journal.verify(in) {
		// The host is only a name: an entry made by hand, or one signed
		// by another user (or a copied configuration), names it too.
		return in, "is not signed by this user's servers on this machine (copied by a sync client, or made by hand)"
	}
	if why := checkIntent(in); why != "" {
		return in, why
	}
	return in, ""
}

// checkIntent says what in asks that no edit of this server would.
func checkIntent(in intent) string {
	switch in.Op {
	case opMove:
		if len(in.Moves) == 0 {
			return "names no move"
		}
		for from, to := range in.Moves {
			// Paths inside the vault, outside Obsidian's folders: a file
			// moved with its folder keeps a name a tool would not give
			// now, so names are not judged here.
			if note.CheckPath(from) != "" || note.InDotFolder(from) || note.CheckPath(to) != "" || note.InDotFolder(to) {
				return fmt.Sprintf("names a path no note may have (%q → %q)", from, to)
			}
		}
	case opRenameHeading:
		h := in.Heading
		if h == nil || h.Index < 0 || h.Index >= len(h.Outline) || patch.CheckHeadingText(h.To) != "" {
			return "names no heading to rename"
		}
		for _, p := range append([]string{h.Target}, h.Paths...) {
			if note.CheckPath(p) != "" || note.InDotFolder(p) {
				return fmt.Sprintf("names a path no note may have (%q)", p)
			}
		}
	case opRenameTag:
		if metadata.ValidTag(in.From) != "" || metadata.ValidTag(in.To) != "" {
			return fmt.Sprintf("names a tag that is not one (%q → %q)", in.From, in.To)
		}
		for _, p := range in.Paths {
			if note.CheckPath(p) != "" || note.InDotFolder(p) {
				return fmt.Sprintf("names a path no note may have (%q)", p)
			}
		}
	}
	return ""
}

// resume completes the interrupted edit in, or rolls it back when it had
// not started, and says which in a sentence; complete is false when some
// note could not be changed, and the entry must stay for another try;
// left is true when some note was left for the person to check. The
// notes it changes are those the policy lets this server change.
func (v *Engine) resume(ctx context.Context, name string, in intent) (said string, rolledBack, complete, left bool) {
	since := fmt.Sprintf("started %s by process %d", in.Started.Format(time.RFC3339), in.PID)
	if in.Proc == thisProcess {
		since = fmt.Sprintf("started %s by this process, and stopped part-way", in.Started.Format(time.RFC3339))
	}
	switch in.Op {
	case opMove:
		files, err := v.Files()
		if err != nil {
			return fmt.Sprintf("the move %v (%s) could not be resumed: %v", in.Moves, since, err), false, false, false
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
				return fmt.Sprintf("the move of %s to %s (%s) was left as it is: both or neither path exist now", from, to, since), false, true, true
			}
		}
		if len(pending) == 0 {
			return fmt.Sprintf("the move %v (%s) had not happened yet; nothing was changed", in.Moves, since), true, true, false
		}
		before := make([]string, len(files))
		for i, f := range files {
			before[i] = f
			if from, ok := back[f]; ok {
				before[i] = from
			}
		}
		changes, _ := v.retarget(ctx, before, pending)
		return fmt.Sprintf("completed the move %v (%s): %d links in %d notes rewritten now, %d notes could not be changed %v",
			pending, since, changes.Links, changes.Notes, len(changes.Failed), changes.Failed), false, len(changes.Failed) == 0, false
	case opRenameTag:
		notes, uses, skipped, failed := v.resumeNotes(ctx, name, in.Paths, func(p string) (int, error) {
			return v.renameTagIn(ctx, p, in.From, in.To, nil)
		})
		return fmt.Sprintf("completed the rename of tag %s to %s (%s): %d uses in %d notes renamed now; left for you to check, changed by another program since or kept from this server by its policy: %v; could not be changed, tried again at the next start: %v",
			in.From, in.To, since, uses, notes, skipped, failed), false, len(failed) == 0, len(skipped) > 0
	case opRenameHeading:
		h := *in.Heading
		files, err := v.Files()
		if err != nil {
			return fmt.Sprintf("the rename of heading %q in %s (%s) could not be resumed: %v", h.Outline[h.Index].Text, h.Target, since, err), false, false, false
		}
		ix := links.NewIndex(files)
		notes, n, skipped, failed := v.resumeNotes(ctx, name, append([]string{h.Target}, h.Paths...), func(p string) (int, error) {
			_, renamed, n, err := v.renameHeadingIn(ctx, p, h, ix, nil, "")
			if renamed {
				n++
			}
			return n, err
		})
		return fmt.Sprintf("completed the rename of heading %q to %q in %s (%s): the heading and %d links in %d notes changed now; left for you to check, changed by another program since or kept from this server by its policy: %v; could not be changed, tried again at the next start: %v",
			h.Outline[h.Index].Text, h.To, h.Target, since, n, notes, skipped, failed), false, len(failed) == 0, len(skipped) > 0
	}
	return fmt.Sprintf("an edit of a kind this version does not know (%q, %s) was left as it is", in.Op, since), false, false, false
}

// resumeNotes applies an interrupted edit's change (apply, which says how
// many uses it changed) to each of paths again, except where the journal's
// log shows the note was done before the crash, or changed by another
// program since it was written (skipped: applying it again could change a
// change), or the policy keeps it from this server (skipped too).
func (v *Engine) resumeNotes(ctx context.Context, name string, paths []string, apply func(p string) (int, error)) (notes, uses int, skipped, failed []string) {
	logged := readIntentLog(v, name+".log")
	skipped, failed = []string{}, []string{}
	pol := v.Policy()
	for _, p := range paths {
		if pol.CheckWrite(p) != nil {
			skipped = append(skipped, p)
			continue
		}
		cur, err := v.root.ReadFile(v.RealPath(p))
		if err != nil {
			continue // gone since
		}
		if l, ok := logged[p]; ok {
			// The note as it is, or as it was before an earlier
			// entry's recovery changed it just now: that change is
			// ours, not another program's.
			switch v.replay.was(p, note.ETag(cur), l.before, l.after) {
			case l.after:
				continue // done before the crash
			case l.before:
			default:
				// Written and then changed by another program, or
				// changed before it was written: applying the edit
				// again could change a change (proj → proj/sub).
				skipped = append(skipped, p)
				continue
			}
		}
		n, err := apply(p)
		switch {
		case err != nil:
			failed = append(failed, p)
		case n > 0:
			notes++
			uses += n
		}
	}
	return notes, uses, skipped, failed
}

// hashes is one note's line in a journal's log.
type hashes struct{ before, after string }

// readIntentLog reads a journal's log: each note's last line wins.
func readIntentLog(v *Engine, name string) map[string]hashes {
	out := map[string]hashes{}
	data, err := v.state().ReadFile(name, maxEntryLog)
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
