package native

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

var dvNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func dvQuery(t *testing.T, v *Engine, q note.DataviewQuery) string {
	t.Helper()
	res, err := v.QueryDataview(context.Background(), q)
	if err != nil {
		t.Fatalf("%q: %v", q.Query, err)
	}
	b, _ := json.Marshal(dataview.JSON(res.Values))
	return string(b)
}

// TestDataviewKeptFresh: the pages a query sees are the notes as they
// are now: a field changed, a note added or deleted, a link made — each
// seen by the next query, from the search index's own reads.
func TestDataviewKeptFresh(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Books/Dune.md":     "---\ntags: book\n---\nrating:: 5\n",
		"Books/Piranesi.md": "---\ntags: book\n---\nrating:: 4\n",
		"cover.png":         "png",
	})
	v, err := Open(dir, WithDataviewClock(func() time.Time { return dvNow }, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	q := note.DataviewQuery{Query: "TABLE rating FROM #book SORT rating DESC"}
	if got, want := dvQuery(t, v, q), `[[{"path":"Books/Dune.md"},5],[{"path":"Books/Piranesi.md"},4]]`; got != want {
		t.Fatalf("first answer %s, want %s", got, want)
	}
	writeFiles(t, dir, map[string]string{
		"Books/Piranesi.md": "---\ntags: book\n---\nrating:: 5.5\n![[cover.png]]\n",
		"Books/Gideon.md":   "#book\n[rating:: 3]\n",
	})
	if got, want := dvQuery(t, v, q), `[[{"path":"Books/Piranesi.md"},5.5],[{"path":"Books/Dune.md"},5],[{"path":"Books/Gideon.md"},3]]`; got != want {
		t.Errorf("after edits %s, want %s", got, want)
	}
	if got, want := dvQuery(t, v, note.DataviewQuery{Query: "this.file.outlinks", Inline: true, Origin: note.ByPath("Books/Piranesi.md")}), `[{"path":"cover.png","display":"cover.png","embed":true}]`; got != want {
		t.Errorf("an embed of a file that is no note: %s, want %s", got, want)
	}
	if err := os.Remove(filepath.Join(dir, "Books", "Dune.md")); err != nil {
		t.Fatal(err)
	}
	if got, want := dvQuery(t, v, q), `[[{"path":"Books/Piranesi.md"},5.5],[{"path":"Books/Gideon.md"},3]]`; got != want {
		t.Errorf("after a delete %s, want %s", got, want)
	}
}

// TestDataviewHeldToThePolicy: a hidden note is no page: no source
// finds it, no link reaches its fields, no inlink names it.
func TestDataviewHeldToThePolicy(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Home.md":           "#p [[Secret]] [[Plan]]\n",
		"Private/Secret.md": "#p\ncodename:: falcon\n[[Plan]]\n",
		"Plan.md":           "#p\n",
	})
	deny, err := policy.ParseList("--deny-paths", "Private/**")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, WithPolicy(&policy.Policy{Deny: deny}), WithDataviewClock(func() time.Time { return dvNow }, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for q, want := range map[string]string{
		"LIST FROM #p SORT file.name":             `[{"path":"Home.md"},{"path":"Plan.md"}]`,
		"LIST FROM \"\" SORT file.name":           `[{"path":"Home.md"},{"path":"Plan.md"}]`,
		"TABLE file.inlinks FROM \"Plan\"":        `[[{"path":"Plan.md"},[{"path":"Home.md"}]]]`,
		"TABLE [[Secret]].codename FROM \"Home\"": `[[{"path":"Home.md"},null]]`,
		"LIST FROM -#p":                           `[]`,
	} {
		if got := dvQuery(t, v, note.DataviewQuery{Query: q}); got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
}

// TestDataviewAsTheEngine: through the engine (its index, its listing,
// its link resolution), the recorded cases answer as the engine alone
// does on the same notes (which TestReplay checks against Dataview's
// own answers). Cases that read the files' times are left out: the
// engine reads the disk's.
func TestDataviewAsTheEngine(t *testing.T) {
	src := filepath.Join("..", "dataview", "testdata", "replay")
	var cases []struct {
		ID, Query, Origin, Kind, Vault string
	}
	b, err := os.ReadFile(filepath.Join(src, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	engines := map[string]*Engine{}
	alone := map[string]*dataview.Vault{}
	for _, c := range cases {
		if strings.Contains(c.Query, "time") || strings.Contains(c.Query, "day") || strings.Contains(c.Query, "file.frontmatter") {
			continue
		}
		v, ok := engines[c.Vault]
		if !ok {
			dir := t.TempDir()
			alone[c.Vault] = copyVault(t, os.DirFS(filepath.Join(src, c.Vault)), dir)
			if v, err = Open(dir, WithDataviewClock(func() time.Time { return dvNow }, time.UTC)); err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			engines[c.Vault] = v
		}
		q := note.DataviewQuery{Query: c.Query, Inline: c.Kind == "inline"}
		if c.Origin != "" {
			q.Origin = note.ByPath(c.Origin)
		}
		got, gerr := v.QueryDataview(context.Background(), q)
		var want *dataview.Result
		var werr error
		if q.Inline {
			want, werr = alone[c.Vault].Inline(context.Background(), c.Query, c.Origin, dataview.Limits{})
		} else {
			want, werr = alone[c.Vault].Query(context.Background(), c.Query, c.Origin, dataview.Limits{})
		}
		if (gerr == nil) != (werr == nil) {
			t.Errorf("%s: through the engine %v, alone %v", c.ID, gerr, werr)
			continue
		}
		if gerr != nil {
			continue
		}
		gj, _ := json.Marshal(dataview.JSON(got.Values))
		wj, _ := json.Marshal(dataview.JSON(want.Values))
		if string(gj) != string(wj) || got.Markdown != want.Markdown {
			t.Errorf("%s (%s): through the engine\n%s\nalone\n%s", c.ID, c.Query, gj, wj)
		}
	}
}

// copyVault writes fsys into dir and indexes the same notes in a vault
// of its own.
func copyVault(t *testing.T, fsys fs.FS, dir string) *dataview.Vault {
	t.Helper()
	dv := dataview.NewVault(dataview.Options{Location: time.UTC, Now: func() time.Time { return dvNow }})
	files := map[string]string{}
	if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		files[p] = string(data)
		dv.Put(p, string(data), dataview.FileStat{Size: int64(len(data))})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, files)
	return dv
}

// TestDataviewConcurrent: queries from several calls at once, while
// notes change, each answer whole (run with -race in CI).
func TestDataviewConcurrent(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("N/%02d.md", i)] = fmt.Sprintf("---\ntags: n\n---\nk:: %d\n- [ ] t%d [due:: 2026-12-%02d]\n", i, i, 1+i%28)
	}
	writeFiles(t, dir, files)
	v, err := Open(dir, WithDataviewClock(func() time.Time { return dvNow }, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				q := []string{`TABLE k FROM #n SORT k DESC`, `TASK WHERE due`, `LIST FROM "N" GROUP BY k > 20`}[(i+w)%3]
				res, err := v.QueryDataview(ctx, note.DataviewQuery{Query: q})
				if err != nil {
					errs <- err
					return
				}
				if res.Len() == 0 {
					errs <- fmt.Errorf("%s: no rows", q)
					return
				}
			}
		}()
	}
	for i := range 10 {
		writeFiles(t, dir, map[string]string{fmt.Sprintf("N/%02d.md", i): fmt.Sprintf("#n\nk:: %d\n", 100+i)})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
