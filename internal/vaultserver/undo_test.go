package vaultserver

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

// undoVault is the generated vault a property run starts from: notes in
// folders linking to each other in every form a rewrite must follow
// (wikilinks with headings and aliases, embeds, Markdown links), with
// frontmatter, tags, tasks and a canvas.
func undoVault(t *testing.T, f *obsidiantest.Fake, r *rand.Rand) {
	t.Helper()
	names := []string{"Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta"}
	folders := []string{"", "Projects/", "Projects/Old/", "Areas/"}
	paths := map[string]string{}
	for _, n := range names {
		paths[n] = folders[r.IntN(len(folders))] + n + ".md"
	}
	for _, n := range names {
		other := names[r.IntN(len(names))]
		body := fmt.Sprintf("---\nstatus: draft\ntags: [work, t%d]\n---\n# %s\n\nSee [[%s]] and [[%s#Risks|the risks]], ![[%s]] and [md](%s).\n\n## Risks\n- [ ] call %s ^c%s\n- wind #work\n",
			r.IntN(3), n, other, other, other, strings.ReplaceAll(paths[other], " ", "%20"), strings.ToLower(n), strings.ToLower(n))
		f.WriteNote(paths[n], body)
	}
	f.WriteNote("Map.canvas", fmt.Sprintf(`{"nodes":[{"id":"a","type":"file","file":%q,"x":0,"y":0,"width":100,"height":100}],"edges":[]}`, paths["Alpha"]))
}

// tree is every file's bytes and every folder of the vault, less the
// trash (where deletes go, and undos of creates) and the app's folder.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ".trash" || rel == ".obsidian" || rel == ".obsidian-mcp" {
			return filepath.SkipDir
		}
		switch {
		case rel == ".":
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// randomWrite is a call of a tool that writes, with arguments drawn for
// the vault as it is (its notes and folders): every write tool of the
// property the issue names.
func randomWrite(r *rand.Rand, files map[string]string, n int) (string, map[string]any) {
	var notes, folders []string
	for p := range files {
		switch {
		case strings.HasSuffix(p, "/"):
			folders = append(folders, strings.TrimSuffix(p, "/"))
		case strings.HasSuffix(p, ".md"):
			notes = append(notes, p)
		}
	}
	slices.Sort(notes)
	slices.Sort(folders)
	pick := func(list []string) string {
		if len(list) == 0 {
			return "Nothing.md"
		}
		return list[r.IntN(len(list))]
	}
	p := pick(notes)
	word := fmt.Sprintf("w%d", n)
	switch r.IntN(20) {
	case 19:
		return "obsidian_replace_in_vault", map[string]any{"find": "wind", "replace": word, "apply": true}
	case 0:
		return "obsidian_create_note", map[string]any{"path": fmt.Sprintf("%sNew %d.md", []string{"", "Projects/", "Fresh/Deep/"}[r.IntN(3)], n), "content": "new " + word + "\n"}
	case 1:
		return "obsidian_append_to_note", map[string]any{"path": p, "content": "appended " + word}
	case 2:
		return "obsidian_prepend_to_note", map[string]any{"path": p, "content": "prepended " + word}
	case 3:
		return "obsidian_patch_note", map[string]any{"path": p, "operation": "append", "heading": "Risks", "content": "- " + word}
	case 4:
		return "obsidian_patch_note", map[string]any{"path": p, "operation": "replace", "property": "status", "content": word}
	case 5:
		return "obsidian_replace_in_note", map[string]any{"path": p, "find": "wind", "replace": word}
	case 6:
		return "obsidian_set_property", map[string]any{"path": p, "key": "n" + word, "value": n}
	case 7:
		return "obsidian_remove_property", map[string]any{"path": p, "key": "status"}
	case 8:
		return "obsidian_update_tags", map[string]any{"path": p, "add": []string{word}, "remove": []string{"work"}}
	case 9:
		return "obsidian_rename_tag", map[string]any{"from": "work", "to": "job" + word}
	case 10:
		return "obsidian_update_task", map[string]any{"path": p, "operation": "toggle", "line": 9}
	case 11:
		return "obsidian_edit_canvas", map[string]any{"path": "Map.canvas", "add": []map[string]any{{"type": "text", "text": word}}}
	case 12:
		return "obsidian_daily_note", map[string]any{"operation": "append", "date": fmt.Sprintf("2026-11-%02d", 1+r.IntN(28)), "content": word}
	case 13:
		return "obsidian_rename_note", map[string]any{"path": p, "new_name": "Renamed " + word}
	case 14:
		return "obsidian_move_note", map[string]any{"path": p, "to": pick(append(folders, "/")) + "/"}
	case 15:
		return "obsidian_folder", map[string]any{"operation": "create", "folder": "Made/" + word}
	case 16:
		if len(folders) > 0 && !strings.HasPrefix(pick(folders), ".") {
			return "obsidian_folder", map[string]any{"operation": "move", "folder": pick(folders), "to": "Moved/" + word}
		}
		return "obsidian_folder", map[string]any{"operation": "create", "folder": word}
	case 17:
		return "obsidian_folder", map[string]any{"operation": "delete", "folder": pick(folders)}
	default:
		return "obsidian_delete_note", map[string]any{"path": p}
	}
}

// TestUndoEverything is the property of the change record: random
// sequences of every tool that writes, on a generated vault, then each
// change undone, newest first, leave the vault byte for byte as it was:
// every file, every link, every folder.
func TestUndoEverything(t *testing.T) {
	t.Parallel()
	for seed := range uint64(testenv.Rounds(3, 30)) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			s, f, _ := undoServer(t)
			r := rand.New(rand.NewPCG(seed, 51))
			undoVault(t, f, r)
			start := tree(t, f.Vault)
			landed := 0
			for n := range 30 {
				tool, args := randomWrite(r, tree(t, f.Vault), n)
				if res := decode(t, s.call(tool, args)); res.Error == nil && !res.Result.IsError {
					landed++
				}
			}
			if landed < 10 {
				t.Fatalf("only %d of 30 writes landed: the run proves little", landed)
			}
			for _, c := range changesOf(t, s, map[string]any{"limit": 200}) {
				res := decode(t, s.call("obsidian_undo", map[string]any{"id": c.ID}))
				if res.Error != nil || res.Result.IsError {
					t.Fatalf("undo of %s (%s %+v): %+v %+v", c.ID, c.Tool, c.Parts, res.Error, res.Result)
				}
			}
			if got := tree(t, f.Vault); !maps.Equal(got, start) {
				t.Errorf("after %d writes undone, the vault differs from the start:\n%s", landed, treeDiff(start, got))
			}
		})
	}
}

// TestUndoBesideOutsideEdits: the same with a person's edits between
// the tool calls. Every undo either applies or refuses with
// REVISION_CONFLICT, and no line the person wrote is lost.
func TestUndoBesideOutsideEdits(t *testing.T) {
	t.Parallel()
	for seed := range uint64(testenv.Rounds(3, 30)) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			s, f, _ := undoServer(t)
			r := rand.New(rand.NewPCG(seed, 52))
			undoVault(t, f, r)
			var theirs []string
			for n := range 30 {
				tool, args := randomWrite(r, tree(t, f.Vault), n)
				decode(t, s.call(tool, args))
				if r.IntN(3) == 0 {
					files := tree(t, f.Vault)
					notes := slices.Sorted(maps.Keys(files))
					notes = slices.DeleteFunc(notes, func(p string) bool { return !strings.HasSuffix(p, ".md") })
					line := fmt.Sprintf("their line %d", n)
					theirs = append(theirs, line)
					p := notes[r.IntN(len(notes))]
					f.WriteNote(p, files[p]+line+"\n")
				}
			}
			applied, refused := 0, 0
			for _, c := range changesOf(t, s, map[string]any{"limit": 200}) {
				res := decode(t, s.call("obsidian_undo", map[string]any{"id": c.ID}))
				switch {
				case res.Error == nil && !res.Result.IsError:
					applied++
				case res.Error != nil && res.Error.Data["errorCode"] == "REVISION_CONFLICT":
					refused++
				default:
					t.Fatalf("undo of %s (%s): neither applied nor refused: %+v %+v", c.ID, c.Tool, res.Error, res.Result)
				}
			}
			all := ""
			for _, data := range treeWithTrash(t, f.Vault) {
				all += data
			}
			for _, line := range theirs {
				if !strings.Contains(all, line) {
					t.Errorf("%q, written by the person, is lost", line)
				}
			}
			t.Logf("%d undos applied, %d refused, %d outside edits kept", applied, refused, len(theirs))
		})
	}
}

func undoServer(t *testing.T) (*testServer, *obsidiantest.Fake, string) {
	t.Helper()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	cfg := testConfig(f)
	cfg.Backend, cfg.VaultPath, cfg.ObsidianBin = backend.Native, f.Vault, "/nonexistent/bin/obsidian"
	cfg.ChangesDir = t.TempDir()
	s := startServer(t, cfg)
	s.initialize()
	return s, f, cfg.ChangesDir
}

// treeWithTrash is every file's bytes, the trash's too.
func treeWithTrash(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := tree(t, dir)
	trash := filepath.Join(dir, ".trash")
	if _, err := os.Stat(trash); err == nil {
		for p, data := range tree(t, trash) {
			out[".trash/"+p] = data
		}
	}
	return out
}

// treeDiff says how two trees differ, for a failure.
func treeDiff(want, got map[string]string) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			fmt.Fprintf(&b, "missing %s\n", p)
		} else if g != want[p] {
			w, _ := json.Marshal(want[p])
			gg, _ := json.Marshal(g)
			fmt.Fprintf(&b, "differs %s:\n  want %s\n  got  %s\n", p, w, gg)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			fmt.Fprintf(&b, "extra %s\n", p)
		}
	}
	return b.String()
}

// undoCall is obsidian_undo's answer: its data, or its error.
func undoCall(t *testing.T, s *testServer, args map[string]any) (map[string]any, *rpcError) {
	t.Helper()
	r := decode(t, s.call("obsidian_undo", args))
	if r.Error != nil {
		return nil, &rpcError{Code: r.Error.Code, Message: r.Error.Message, Data: r.Error.Data}
	}
	if r.Result == nil || r.Result.IsError {
		t.Fatalf("obsidian_undo %v: %+v", args, r.Result)
	}
	data, _ := r.Result.StructuredContent["data"].(map[string]any)
	return data, nil
}

type rpcError struct {
	Code    int
	Message string
	Data    map[string]any
}

func (e *rpcError) kind() any { return e.Data["errorCode"] }

// TestUndoBadInput: ids the record does not have, an undo asked twice, an
// undo's undo (a redo) and its undo, a dry run, a client's last changes,
// and a record damaged on disk: each a clear answer, the vault untouched
// where nothing could be done.
func TestUndoBadInput(t *testing.T) {
	t.Parallel()
	s, f, base := undoServer(t)
	f.WriteNote("Plan.md", "plan\n")
	note := func() string {
		data, err := os.ReadFile(filepath.Join(f.Vault, "Plan.md"))
		if err != nil {
			return "(none)"
		}
		return string(data)
	}
	call := func(tool string, args map[string]any) {
		t.Helper()
		if r := decode(t, s.call(tool, args)); r.Error != nil || r.Result.IsError {
			t.Fatalf("%s: %+v %+v", tool, r.Error, r.Result)
		}
	}
	call("obsidian_append_to_note", map[string]any{"path": "Plan.md", "content": "one"})
	a := latest(t, s).ID

	for _, id := range []string{"20261128T090000.000000Z-000000", "../../etc/passwd", "nope"} {
		if _, err := undoCall(t, s, map[string]any{"id": id}); err == nil || err.kind() != "INVALID_PARAMS" || !strings.Contains(fmt.Sprint(err.Data["fields"]), "id") {
			t.Errorf("undo of %q: %+v, want INVALID_PARAMS naming id", id, err)
		}
	}
	if _, err := undoCall(t, s, map[string]any{"client": "nobody"}); err == nil || err.kind() != "INVALID_PARAMS" {
		t.Errorf("undo of a client with no change: %+v", err)
	}

	dry, err := undoCall(t, s, map[string]any{"id": a, "dry_run": true})
	if err != nil || dry["dry_run"] != true || note() != "plan\n\none" {
		t.Fatalf("dry run: %v %+v, note %q", dry, err, note())
	}
	appended := note()
	u1, err := undoCall(t, s, map[string]any{"id": a})
	if err != nil || note() != "plan\n" {
		t.Fatalf("undo: %+v, note %q", err, note())
	}
	if _, err := undoCall(t, s, map[string]any{"id": a}); err == nil || !strings.Contains(err.Message+fmt.Sprint(err.Data), "undone already") {
		t.Errorf("undo asked twice: %+v", err)
	}
	// The undo's undo is a redo; its undo undoes again.
	u2, err := undoCall(t, s, map[string]any{"id": u1["change"]})
	if err != nil || note() != appended {
		t.Fatalf("redo: %+v, note %q", err, note())
	}
	if _, err := undoCall(t, s, map[string]any{"id": u2["change"]}); err != nil || note() != "plan\n" {
		t.Fatalf("the redo undone: %+v, note %q", err, note())
	}
	if _, err := undoCall(t, s, map[string]any{"id": a}); err == nil {
		t.Errorf("the change undone again, redone and undone: a fourth undo of it went through")
	}

	// A client's last changes, newest first, undos left out.
	call("obsidian_append_to_note", map[string]any{"path": "Plan.md", "content": "two"})
	call("obsidian_append_to_note", map[string]any{"path": "Plan.md", "content": "three"})
	if got, err := undoCall(t, s, map[string]any{"client": "test", "last": 2}); err != nil || len(got["undone"].([]any)) != 2 || note() != "plan\n" {
		t.Fatalf("the client's last two: %v %+v, note %q", got, err, note())
	}

	// A record damaged on disk: the change whose bytes are gone cannot be
	// undone, says so, and leaves the vault as it is; the others can.
	call("obsidian_append_to_note", map[string]any{"path": "Plan.md", "content": "four"})
	four := latest(t, s)
	call("obsidian_create_note", map[string]any{"path": "Other.md", "content": "other\n"})
	other := latest(t, s).ID
	// The bytes the record keeps overwritten on disk.
	rec := recordDir(t, base)
	dats, _ := filepath.Glob(filepath.Join(rec, "log", "*.dat"))
	for _, dat := range dats {
		fi, err := os.Stat(dat)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dat, make([]byte, fi.Size()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if len(dats) == 0 {
		t.Fatal("no bytes in the record to damage")
	}
	before := note()
	if _, err := undoCall(t, s, map[string]any{"id": four.ID}); err == nil || !strings.Contains(err.Message, "damaged") || note() != before {
		t.Errorf("undo with its bytes damaged: %+v, note %q", err, note())
	}
	if err := os.WriteFile(filepath.Join(rec, "log", "20261128T000000.000000Z-000000.log"), []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := undoCall(t, s, map[string]any{"id": other}); err != nil {
		t.Errorf("another change beside a damaged entry: %+v", err)
	}
	if _, err := os.Stat(filepath.Join(f.Vault, "Other.md")); err == nil {
		t.Errorf("Other.md is still there after its creation was undone")
	}
}

// recordDir is the folder of s's change record.
func recordDir(t *testing.T, base string) string {
	t.Helper()
	entries, err := os.ReadDir(base)
	if err != nil || len(entries) != 1 {
		t.Fatalf("the record's base holds %v (%v)", entries, err)
	}
	return filepath.Join(base, entries[0].Name())
}

// TestUndoHeldToThePolicy: a change that touched a note the policy now
// denies is not undone by a tool (not even in part), and is by the
// vault's owner in the terminal, recorded as a change of its own.
func TestUndoHeldToThePolicy(t *testing.T) {
	t.Parallel()
	s, f, base := undoServer(t)
	f.WriteNote("Private/Diary.md", "dear diary\n")
	f.WriteNote("Plan.md", "see [[Diary]]\n")
	if r := decode(t, s.call("obsidian_rename_note", map[string]any{"path": "Private/Diary.md", "new_name": "Journal"})); r.Error != nil || r.Result.IsError {
		t.Fatalf("rename: %+v", r.Error)
	}
	renamed := latest(t, s).ID

	deny, err := policy.ParseList("--deny-paths", "Private/**")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(f)
	cfg.Backend, cfg.VaultPath, cfg.ObsidianBin, cfg.ChangesDir = backend.Native, f.Vault, "/nonexistent/bin/obsidian", base
	cfg.Policy = &policy.Policy{Deny: deny}
	held := startServer(t, cfg)
	held.initialize()
	if _, err := undoCall(t, held, map[string]any{"id": renamed}); err == nil || err.kind() != "PERMISSION_DENIED" {
		t.Fatalf("undo of a change to a denied note: %+v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(f.Vault, "Plan.md")); string(data) != "see [[Journal]]\n" {
		t.Fatalf("the refused undo changed Plan.md: %q", data)
	}

	done, err := UndoInTerminal(t.Context(), base, f.Vault, note.UndoRequest{ID: renamed}, testLogger(&obsidiantest.Buffer{}, 0))
	if err != nil || done.Change == "" {
		t.Fatalf("undo in the terminal: %+v %v", done, err)
	}
	if got := tree(t, f.Vault); got["Private/Diary.md"] != "dear diary\n" || got["Plan.md"] != "see [[Diary]]\n" || got["Private/Journal.md"] != "" {
		t.Errorf("after the terminal's undo: %v", got)
	}
	if c := latest(t, s); c.ID != done.Change || c.Client != "obsidian-mcp history" || c.Undoes != renamed {
		t.Errorf("the terminal's undo is recorded as %+v", c)
	}
}

// TestReplaceInVaultUndone: a replace across notes is one change of many
// parts, undone as one; code blocks and frontmatter are left alone; a
// note changed since the dry run is not written over.
func TestReplaceInVaultUndone(t *testing.T) {
	t.Parallel()
	s, f, _ := undoServer(t)
	start := map[string]string{
		"A.md":          "---\ncolour: red\n---\nThe colour is red.\n```\ncolour = 1\n```\n",
		"Sub/B.md":      "colour and colour\n",
		"Sub/Deep/C.md": "no match\n",
	}
	for p, c := range start {
		f.WriteNote(p, c)
	}
	dry := decode(t, s.call("obsidian_replace_in_vault", map[string]any{"find": "colour", "replace": "color"}))
	if dry.Error != nil {
		t.Fatalf("dry run: %+v", dry.Error)
	}
	data := dry.Result.StructuredContent["data"].(map[string]any)
	if data["dry_run"] != true || data["notes"] != float64(2) || data["replacements"] != float64(3) {
		t.Fatalf("dry run: %v", data)
	}
	if got := tree(t, f.Vault); got["A.md"] != start["A.md"] {
		t.Fatalf("the dry run wrote: %q", got["A.md"])
	}
	etags := map[string]any{}
	for _, c := range data["changed"].([]any) {
		c := c.(map[string]any)
		etags[c["path"].(string)] = c["etag"]
	}
	// B changes after the dry run: the apply leaves it alone.
	f.WriteNote("Sub/B.md", "colour and colour, and more\n")
	res := decode(t, s.call("obsidian_replace_in_vault", map[string]any{"find": "colour", "replace": "color", "apply": true, "etags": etags}))
	if res.Error != nil {
		t.Fatalf("apply: %+v", res.Error)
	}
	applied := res.Result.StructuredContent["data"].(map[string]any)
	if applied["notes"] != float64(1) || len(applied["failed"].([]any)) != 1 {
		t.Fatalf("apply: %v", applied)
	}
	got := tree(t, f.Vault)
	if got["A.md"] != "---\ncolour: red\n---\nThe color is red.\n```\ncolour = 1\n```\n" || got["Sub/B.md"] != "colour and colour, and more\n" {
		t.Fatalf("after the apply: %q %q", got["A.md"], got["Sub/B.md"])
	}
	// Across the whole vault, then undone as one.
	all := decode(t, s.call("obsidian_replace_in_vault", map[string]any{"find": "colour", "replace": "hue", "apply": true, "everywhere": true}))
	if all.Error != nil || all.Result.StructuredContent["data"].(map[string]any)["notes"] != float64(2) {
		t.Fatalf("the whole vault: %+v %+v", all.Error, all.Result)
	}
	c := latest(t, s)
	if c.Tool != "obsidian_replace_in_vault" || len(c.Parts) != 2 {
		t.Fatalf("recorded as %+v", c)
	}
	if _, err := undoCall(t, s, map[string]any{"id": c.ID}); err != nil {
		t.Fatalf("undo: %+v", err)
	}
	if after := tree(t, f.Vault); !maps.Equal(after, got) {
		t.Errorf("after the undo:\n%s", treeDiff(got, after))
	}
}

// TestAppWritesRecorded: with the app running (the fake obsidian), the
// writes that go through it are recorded as the engine's are, from the
// folder read before and after, and undone exactly: a note created, one
// appended to, one deleted; and nothing is recorded for a write the app
// refused.
func TestAppWritesRecorded(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Plan.md", "# Plan\n")
	f.WriteNote("Old.md", "old\n")
	f.WriteNote("Draft.md", "draft\n")
	cfg := testConfig(f)
	cfg.VaultPath, cfg.ChangesDir = f.Vault, t.TempDir()
	s := startServer(t, cfg)
	s.initialize()
	start := tree(t, f.Vault)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_create_note", map[string]any{"path": "New.md", "content": "made through the app\n"}},
		{"obsidian_append_to_note", map[string]any{"path": "Plan.md", "content": "appended through the app"}},
		{"obsidian_delete_note", map[string]any{"path": "Old.md"}},
		{"obsidian_rename_note", map[string]any{"path": "Draft.md", "new_name": "Final"}},
	} {
		if r := decode(t, s.call(c.tool, c.args)); r.Error != nil || r.Result.IsError {
			t.Fatalf("%s: %+v", c.tool, r.Error)
		}
		if !strings.Contains(s.logs.String(), "backend=cli") {
			t.Fatalf("%s was not served by the app:\n%s", c.tool, s.logs)
		}
	}
	if r := decode(t, s.call("obsidian_append_to_note", map[string]any{"path": "Missing.md", "content": "x"})); r.Error == nil {
		t.Fatal("an append to a missing note went through")
	}
	list := changesOf(t, s, map[string]any{"limit": 10})
	var got []string
	for _, c := range list {
		for _, p := range c.Parts {
			got = append(got, c.Tool+" "+p.Op+" "+p.Path)
		}
	}
	want := []string{"obsidian_rename_note move Draft.md", "obsidian_delete_note delete Old.md", "obsidian_append_to_note edit Plan.md", "obsidian_create_note create New.md"}
	if !slices.Equal(got, want) {
		t.Fatalf("recorded %q, want %q", got, want)
	}
	for _, c := range list {
		if _, err := undoCall(t, s, map[string]any{"id": c.ID}); err != nil {
			t.Fatalf("undo of %s: %+v", c.Tool, err)
		}
	}
	if after := tree(t, f.Vault); !maps.Equal(after, start) {
		t.Errorf("after the undos:\n%s", treeDiff(start, after))
	}
}
