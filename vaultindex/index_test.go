package vaultindex

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// memSource is a vault in memory. Every write moves the file's stamp, as a
// file system would; reads are counted.
type memSource struct {
	mu    sync.Mutex
	files map[string]string
	mods  map[string]time.Time
	ids   map[string]uint64 // file identities; 0 unless set
	reads int
	clock time.Time
}

func newMem(files map[string]string) *memSource {
	m := &memSource{files: map[string]string{}, mods: map[string]time.Time{}, ids: map[string]uint64{}, clock: time.Now().Add(-24 * time.Hour)}
	for p, c := range files {
		m.write(p, c)
	}
	return m
}

func (m *memSource) write(p, content string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clock = m.clock.Add(time.Second)
	m.files[p] = content
	m.mods[p] = m.clock
}

func (m *memSource) remove(p string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, p)
}

func (m *memSource) Files() ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.files))
	for p := range m.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

func (m *memSource) Stamp(p string) (Stamp, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.files[p]
	if !ok {
		return Stamp{}, errors.E(errors.FileNotFound, "gone")
	}
	return Stamp{Mod: m.mods[p], Size: int64(len(c)), ID: m.ids[p]}, nil
}

func (m *memSource) ReadFile(p string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	c, ok := m.files[p]
	if !ok {
		return nil, errors.E(errors.FileNotFound, "gone")
	}
	return []byte(c), nil
}

var testVault = map[string]string{
	"Projects/Garden Plan.md": "---\ntags: [garden, project/active]\naliases: [Backyard]\nstatus: doing\n---\n# Garden Plan\nPlant tomatoes in spring. ^plant\n## Risks\nFrost in early spring.\n",
	"Journal/Monday.md":       "Worked on the garden today, watered the tomatoes.\nMet [[Ana Lima]] at the café. #journal\n",
	"People/Ana Lima.md":      "---\ntags: person\n---\nAna likes [[Garden Plan]] and [[Nowhere]].\n`#notatag` and\n```\n#nottag [[Nowhere]]\n```\n",
	"Recipes/Tomato Soup.md":  "Tomato soup: tomatoes, salt. Not about the garden at all, although garden garden garden garden garden appears.\n#food #project/done\n",
	"日本/庭園.md":                "庭園計画について。トマトを植える。\n",
	"Archive/Old.md":          "old garden notes, spring plans\n[[Ana Lima]]\n",
	"Attachments/pic.png":     "PNG",
}

func paths(res note.SearchResult) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

func TestSearch(t *testing.T) {
	t.Parallel()
	ix := New(newMem(testVault))
	ctx := context.Background()
	cases := []struct {
		query, folder string
		mode          string
		want          []string // exact order
		wantKind      errors.Kind
	}{
		// Words are ORed: the notes with both come first ("plans" has the
		// stem of "plan", and counts nearly as much), then those with one.
		{query: "garden plan", want: []string{"Projects/Garden Plan.md", "Archive/Old.md", "People/Ana Lima.md", "Recipes/Tomato Soup.md", "Journal/Monday.md"}},
		{query: "tomato", want: []string{"Recipes/Tomato Soup.md", "Journal/Monday.md", "Projects/Garden Plan.md"}}, // tomatoes, for less
		{query: "tom", want: []string{}},            // too short to match as a prefix
		{query: `"garden plans"`, want: []string{}}, // phrases match exactly
		// Relaxed (no note has "grow"); Tomato Soup's title has the stem of
		// "tomatoes", half its title.
		{query: "how do tomatoes grow", want: []string{"Recipes/Tomato Soup.md", "Journal/Monday.md", "Projects/Garden Plan.md"}},
		// Title, alias and tag first; then six body matches; then one each, shorter notes first.
		{query: "garden", want: []string{"Projects/Garden Plan.md", "Recipes/Tomato Soup.md", "Archive/Old.md", "People/Ana Lima.md", "Journal/Monday.md"}},
		{query: `"early spring"`, want: []string{"Projects/Garden Plan.md"}},
		{query: `"spring early"`, want: []string{}},
		{query: "garden -tomatoes", want: []string{"Archive/Old.md", "People/Ana Lima.md"}},
		{query: "frost OR soup", want: []string{"Recipes/Tomato Soup.md", "Projects/Garden Plan.md"}},
		// Diacritics folded; Ana Lima by the text of Monday's line that
		// links to her ("Met [[Ana Lima]] at the café"), below the note
		// that says it.
		{query: "cafe", want: []string{"Journal/Monday.md", "People/Ana Lima.md"}},
		{query: "CAFÉ", want: []string{"Journal/Monday.md", "People/Ana Lima.md"}},
		{query: "backyard", want: []string{"Projects/Garden Plan.md"}}, // alias
		{query: "tag:project", want: []string{"Projects/Garden Plan.md", "Recipes/Tomato Soup.md"}},
		{query: "tag:#project/active", want: []string{"Projects/Garden Plan.md"}},
		{query: "garden -tag:project", want: []string{"Archive/Old.md", "People/Ana Lima.md", "Journal/Monday.md"}},
		{query: "[status:doing]", want: []string{"Projects/Garden Plan.md"}},
		{query: "[status]", want: []string{"Projects/Garden Plan.md"}},
		{query: "garden path:archive", want: []string{"Archive/Old.md"}},
		{query: "file:soup", want: []string{"Recipes/Tomato Soup.md"}},
		{query: "garden", folder: "Projects/", want: []string{"Projects/Garden Plan.md"}},
		{query: "庭園", want: []string{"日本/庭園.md"}},
		{query: "計画", want: []string{"日本/庭園.md"}},
		{query: "トマト", want: []string{"日本/庭園.md"}},
		{query: "庭", want: []string{"日本/庭園.md"}},
		{query: "庭計", want: []string{}},
		{query: "notatag OR nottag", want: []string{"People/Ana Lima.md"}},                                                                    // code is still text
		{query: "tag:notatag", want: []string{}},                                                                                              // but never a tag
		{query: "tomat.*s", mode: note.SearchRegex, want: []string{"Journal/Monday.md", "Projects/Garden Plan.md", "Recipes/Tomato Soup.md"}}, // one match each: by path
		{query: "(", mode: note.SearchRegex, wantKind: errors.InvalidParams},
		{query: "  ", wantKind: errors.InvalidParams},
		{query: "OR garden", wantKind: errors.InvalidParams},
	}
	for _, c := range cases {
		res, err := ix.Search(ctx, note.SearchRequest{Query: c.query, Mode: c.mode, Folder: c.folder, Limit: 20})
		if c.wantKind != "" {
			if errors.From(err).Kind != c.wantKind {
				t.Errorf("%q: err %v, want %s", c.query, err, c.wantKind)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.query, err)
			continue
		}
		if got := paths(res); !reflect.DeepEqual(got, c.want) || res.Total != len(c.want) || res.Relaxed != strings.Contains(c.query, "how") {
			t.Errorf("%q: got %q (total %d, relaxed %v), want %q", c.query, got, res.Total, res.Relaxed, c.want)
		}
	}
}

func TestSearchSnippetsAndPaging(t *testing.T) {
	t.Parallel()
	ix := New(newMem(testVault))
	res, err := ix.Search(context.Background(), note.SearchRequest{Query: "spring frost", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hits[0]
	want := []note.Snippet{{Line: 7, Text: "Plant tomatoes in <mark>spring</mark>. ^plant"}, {Line: 9, Text: "<mark>Frost</mark> in early <mark>spring</mark>."}}
	// Archive/Old.md has "spring" alone: it is counted, below.
	if h.Path != "Projects/Garden Plan.md" || !reflect.DeepEqual(h.Snippets, want) || res.Total != 2 {
		t.Errorf("got %+v total %d, want Garden Plan with %+v", h, res.Total, want)
	}
	if !reflect.DeepEqual(h.Matched, []string{"body"}) {
		t.Errorf("matched_in = %q", h.Matched)
	}
	res, err = ix.Search(context.Background(), note.SearchRequest{Query: "risks", Limit: 1})
	if err != nil || !reflect.DeepEqual(res.Hits[0].Matched, []string{"heading", "body"}) {
		t.Errorf("risks: %+v %v", res, err)
	}
	next, err := ix.Search(context.Background(), note.SearchRequest{Query: "spring", Offset: 1, Limit: 1})
	if err != nil || len(next.Hits) != 1 || next.Hits[0].Path != "Projects/Garden Plan.md" { // the short Archive/Old.md is first
		t.Errorf("page 2: %+v %v", next, err)
	}
	long := strings.Repeat("word ", 100) + "needle" + strings.Repeat(" word", 100)
	m := mark(long, [][2]int{{500, 506}})
	if !strings.HasPrefix(m, "…") || !strings.HasSuffix(m, "…") || !strings.Contains(m, "<mark>needle</mark>") || len(m) > 2*snippetContext+40 {
		t.Errorf("long line snippet = %q", m)
	}
}

// TestFresh: what changes in the vault shows in the very next answer, and
// only what changed is read again.
func TestFresh(t *testing.T) {
	t.Parallel()
	src := newMem(testVault)
	ix := New(src)
	ctx := context.Background()
	search := func(q string) []string {
		t.Helper()
		res, err := ix.Search(ctx, note.SearchRequest{Query: q, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		return paths(res)
	}
	if got := search("zucchini"); len(got) != 0 {
		t.Fatalf("zucchini before: %q", got)
	}
	src.write("New.md", "zucchini everywhere #veg")
	if got := search("zucchini"); !reflect.DeepEqual(got, []string{"New.md"}) {
		t.Errorf("after create: %q", got)
	}
	// A rewrite within the file system's timestamp tick leaves the stamp
	// as it was (same time, same size); the note was read within the racy
	// window, so it is read again anyway.
	src.mu.Lock()
	src.files["New.md"] = "marrow everywhere #veg"
	src.mods["New.md"] = time.Now()
	src.mu.Unlock()
	search("marrow")
	src.mu.Lock()
	src.files["New.md"] = "squash everywhere #veg" // same length, same stamp
	src.mu.Unlock()
	if got := search("squash"); !reflect.DeepEqual(got, []string{"New.md"}) {
		t.Errorf("after a rewrite with an unchanged stamp: %q", got)
	}
	// Age every stamp past the racy window, as time would.
	src.mu.Lock()
	for p := range src.mods {
		src.mods[p] = src.mods[p].Add(-time.Hour)
	}
	src.mu.Unlock()
	search("zucchini")
	src.mu.Lock()
	before := src.reads
	src.mu.Unlock()
	src.write("Journal/Monday.md", "now about zucchini")
	if got := search("zucchini"); !reflect.DeepEqual(got, []string{"Journal/Monday.md"}) {
		t.Errorf("after edit: %q", got)
	}
	src.mu.Lock()
	// One read to index the edited note, plus one snippet read per hit:
	// the other notes, unchanged and past the racy window, are not read.
	if reads := src.reads - before; reads != 2 {
		t.Errorf("the edit cost %d reads, want 2 (1 re-index + 1 snippet)", reads)
	}
	src.mu.Unlock()
	src.remove("New.md")
	if got := search("squash"); len(got) != 0 {
		t.Errorf("after delete: %q", got)
	}
	tags, err := ix.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tags {
		if tc.Tag == "veg" || tc.Tag == "journal" {
			t.Errorf("tag %q survived its note's edit or deletion", tc.Tag)
		}
	}
}

func TestGraphTagsProperties(t *testing.T) {
	t.Parallel()
	ix := New(newMem(testVault))
	ctx := context.Background()
	bl, err := ix.Backlinks(ctx, "People/Ana Lima.md")
	if err != nil {
		t.Fatal(err)
	}
	wantBL := []note.LinkRef{{Path: "Archive/Old.md", Line: 2}, {Path: "Journal/Monday.md", Line: 2}}
	if !reflect.DeepEqual(bl, wantBL) {
		t.Errorf("backlinks = %+v", bl)
	}
	ls, err := ix.Links(ctx, "People/Ana Lima.md")
	if err != nil {
		t.Fatal(err)
	}
	wantLinks := []note.OutLink{{Target: "Garden Plan", Path: "Projects/Garden Plan.md", Resolved: true, Line: 4}, {Target: "Nowhere", Line: 4}}
	if !reflect.DeepEqual(ls.Links, wantLinks) {
		t.Errorf("links = %+v", ls.Links)
	}
	un, err := ix.Unresolved(ctx)
	if err != nil || len(un) != 1 || un[0].Target != "Nowhere" || un[0].Count != 1 {
		t.Errorf("unresolved = %+v %v", un, err)
	}
	orphans, err := ix.Orphans(ctx)
	wantOrphans := []string{"Archive/Old.md", "Journal/Monday.md", "Recipes/Tomato Soup.md", "日本/庭園.md"}
	if err != nil || !reflect.DeepEqual(orphans, wantOrphans) {
		t.Errorf("orphans = %q %v", orphans, err)
	}
	tags, err := ix.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantTags := []note.TagCount{{Tag: "food", Count: 1}, {Tag: "garden", Count: 1}, {Tag: "journal", Count: 1}, {Tag: "person", Count: 1},
		{Tag: "project", Count: 2}, {Tag: "project/active", Count: 1}, {Tag: "project/done", Count: 1}}
	if !reflect.DeepEqual(tags, wantTags) {
		t.Errorf("tags = %+v", tags)
	}
	tagged, err := ix.Tagged(ctx, "#Project")
	if err != nil || !reflect.DeepEqual(tagged, []string{"Projects/Garden Plan.md", "Recipes/Tomato Soup.md"}) {
		t.Errorf("tagged = %q %v", tagged, err)
	}
	props, err := ix.Properties(ctx)
	wantProps := []note.PropertyStat{{Name: "aliases", Count: 1, Types: []string{"list"}}, {Name: "status", Count: 1, Types: []string{"text"}},
		{Name: "tags", Count: 2, Types: []string{"list", "text"}}}
	if err != nil || !reflect.DeepEqual(props, wantProps) {
		t.Errorf("properties = %+v %v", props, err)
	}
}

func TestTokenize(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"Hello, World!":     {"hello", "world"},
		"Ærøskøbing Straße": {"aeroskobing", "strasse"},
		"ＡＢＣ ﬁne":           {"abc", "fine"},
		"naïve résumé":      {"naive", "resume"},
		"日本語のテキスト":          {"日本", "本語", "語の", "のテ", "テキ", "キス", "スト"},
		"x2 2024-11-23":     {"x2", "2024", "11", "23"},
		"mixed日本text":       {"mixed", "日本", "text"},
	}
	for in, want := range cases {
		if got := terms(in); !reflect.DeepEqual(got, want) {
			t.Errorf("terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBuildHook: the program's hook runs around a build that reads many
// notes, once, and not around a small refresh; the index itself changes no
// process setting.
func TestBuildHook(t *testing.T) {
	files := map[string]string{}
	for i := range 600 {
		files[fmt.Sprintf("n%03d.md", i)] = fmt.Sprintf("note %d about compost", i)
	}
	src := newMem(files)
	began, ended := 0, 0
	ix := New(src, WithBuildHook(func(Build) func() {
		began++
		return func() { ended++ }
	}))
	if _, err := ix.Search(t.Context(), note.SearchRequest{Query: "compost", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if began != 1 || ended != 1 {
		t.Fatalf("hook began %d, ended %d times around the first build; want 1, 1", began, ended)
	}
	src.write("n000.md", "changed")
	if _, err := ix.Search(t.Context(), note.SearchRequest{Query: "compost", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if began != 1 {
		t.Errorf("hook ran for a one-note refresh")
	}
}

// TestSearchAsked: queries as people type them. Japanese and Chinese
// written without spaces find the note that has their words (particles
// and the bigrams across words need not match); the filler of a question
// ("how do I") counts for nothing; a note whose title or alias is the
// whole query comes first; words are ORed, and the notes with more of them
// come before a long note that repeats one.
func TestSearchAsked(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("I do this and I do that, how I use the room is how I do it. ", 40)
	ix := New(newMem(map[string]string{
		"ヘルプ/同期トラブル.md":         "# 同期トラブル\n別のデバイスで編集すると競合が起きることがあります。\n",
		"ヘルプ/日記.md":             "今日は同期した。\n",
		"ヘルプ/ファイルの埋め込み.md":      "# ファイルの埋め込み\nPDFを埋め込むには ![[file.pdf]] と書きます。\n",
		"帮助/同步问题.md":            "# 同步问题\n当两台设备同时编辑时会发生冲突。\n",
		"帮助/笔记.md":              "我们同步了文件。\n",
		"ไทย/บันทึกประจำวัน.md": "# บันทึกประจำวัน\nวันนี้ฉันเขียนบันทึกสั้นๆ\n",
		"ไทย/อาหาร.md":          "ฉันชอบกินข้าวผัดและเขียนสูตรอาหาร บันทึกไว้ที่นี่\n",
		"ខ្មែរ/កំណត់ចំណាំ.md":   "សរសេរកំណត់ចំណាំរៀងរាល់ថ្ងៃ។\n",
		"မြန်မာ/မှတ်စု.md":      "နေ့စဉ်မှတ်စုရေးသည်။\n",
		"Canvas.md":      "Use a canvas to lay out cards.\n",
		"Canvas tips.md": "canvas canvas canvas: use the canvas, canvas, canvas.\n",
		"Boards.md":      "---\naliases: [Kanban board]\n---\nColumns of cards.\n",
		"Kanban.md":      "kanban board kanban board kanban board\n",
		"Passport.md":    "How to renew a passport: fill in the form.\n",
		"Guide.md":       long,
		"Filler.md":      "How do I? And how would I, if I do?\n",
		"Renewals 1.md":  "renew passport renew",
		"Office.md":      "office office office hours",
		"Renewals 2.md":  "passport renew passport",
		"Renewals 3.md":  "renew renew passport",
	}))
	cases := []struct {
		query string
		want  []string // the first results, in order
		none  []string // never among the results
		above [2]string
	}{
		{query: "同期の競合", want: []string{"ヘルプ/同期トラブル.md", "ヘルプ/日記.md"}},
		{query: "同期 競合", want: []string{"ヘルプ/同期トラブル.md"}},
		{query: "同步冲突", want: []string{"帮助/同步问题.md", "帮助/笔记.md"}},
		{query: "PDF埋め込み", want: []string{"ヘルプ/ファイルの埋め込み.md"}},
		// Thai, Khmer and Myanmar run their words together too.
		{query: "บันทึก", want: []string{"ไทย/บันทึกประจำวัน.md", "ไทย/อาหาร.md"}},
		{query: "ข้าวผัด", want: []string{"ไทย/อาหาร.md"}, none: []string{"ไทย/บันทึกประจำวัน.md"}},
		{query: "កំណត់ចំណាំ", want: []string{"ខ្មែរ/កំណត់ចំណាំ.md"}},
		{query: "မှတ်စု", want: []string{"မြန်မာ/မှတ်စု.md"}},
		// Questions: the notes with most of their pairs, endings aside.
		{query: "デバイスを二台使うと競合ファイルができるのはなぜ", want: []string{"ヘルプ/同期トラブル.md"}},
		{query: "为什么我的笔记在两台设备上出现冲突", want: []string{"帮助/同步问题.md"}},
		{query: "how do I use canvas", want: []string{"Canvas.md", "Canvas tips.md", "Guide.md"}, none: []string{"Filler.md"}},
		{query: "canvas", want: []string{"Canvas.md", "Canvas tips.md"}},
		{query: "kanban board", want: []string{"Boards.md", "Kanban.md"}},
		{query: "renew passport office", above: [2]string{"Passport.md", "Office.md"}},
		{query: "the", want: []string{}}, // a lone stop word is still a word
	}
	for _, c := range cases {
		res, err := ix.Search(context.Background(), note.SearchRequest{Query: c.query, Limit: 20})
		if err != nil {
			t.Errorf("%q: %v", c.query, err)
			continue
		}
		got := paths(res)
		if len(got) < len(c.want) || len(c.want) > 0 && !reflect.DeepEqual(got[:len(c.want)], c.want) {
			t.Errorf("%q: got %q, want %q first", c.query, got, c.want)
		}
		for _, p := range c.none {
			if slices.Contains(got, p) {
				t.Errorf("%q: got %q, want no %s", c.query, got, p)
			}
		}
		if a, b := slices.Index(got, c.above[0]), slices.Index(got, c.above[1]); c.above[0] != "" && (a < 0 || b >= 0 && a > b) {
			t.Errorf("%q: got %q, want %s above %s", c.query, got, c.above[0], c.above[1])
		}
	}
}

// A canvas is searched by what its nodes say and links to the notes it
// shows, each at the line of its node in the canvas file.
func TestCanvas(t *testing.T) {
	t.Parallel()
	vault := maps.Clone(testVault)
	vault["Boards/Roadmap.canvas"] = "{\n\t\"nodes\":[\n" +
		"\t\t{\"id\":\"g\",\"type\":\"group\",\"label\":\"Quarterly\",\"x\":0,\"y\":0,\"width\":900,\"height\":900},\n" +
		"\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"# Roadmap\\nAsk [[Ana Lima]] about the greenhouse #idea\",\"x\":0,\"y\":0,\"width\":250,\"height\":60},\n" +
		"\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"Projects/Garden Plan.md\",\"subpath\":\"#Risks\",\"x\":0,\"y\":100,\"width\":400,\"height\":400}\n" +
		"\t],\n\t\"edges\":[]\n}"
	vault["Boards/Broken.canvas"] = "{not json"
	ix := New(newMem(vault))
	ctx := context.Background()
	res, err := ix.Search(ctx, note.SearchRequest{Query: "greenhouse", Limit: 10})
	if err != nil || !reflect.DeepEqual(paths(res), []string{"Boards/Roadmap.canvas"}) {
		t.Fatalf("search = %q %v", paths(res), err)
	}
	if s := res.Hits[0].Snippets; len(s) != 1 || s[0].Line != 4 || !strings.Contains(s[0].Text, "<mark>greenhouse</mark>") {
		t.Errorf("snippets = %+v", s)
	}
	res, err = ix.Search(ctx, note.SearchRequest{Query: "roadmap", Limit: 10})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "Boards/Roadmap.canvas" {
		t.Errorf("by title: %q %v", paths(res), err)
	}
	res, err = ix.Search(ctx, note.SearchRequest{Query: `"about the greenhouse"`, Limit: 10})
	if err != nil || !reflect.DeepEqual(paths(res), []string{"Boards/Roadmap.canvas"}) {
		t.Errorf("phrase: %q %v", paths(res), err)
	}
	res, err = ix.Search(ctx, note.SearchRequest{Query: "green.ouse", Mode: "regex", Limit: 10})
	if err != nil || !reflect.DeepEqual(paths(res), []string{"Boards/Roadmap.canvas"}) || res.Hits[0].Snippets[0].Line != 4 {
		t.Errorf("regex: %+v %v", res.Hits, err)
	}
	bl, err := ix.Backlinks(ctx, "Projects/Garden Plan.md")
	if err != nil || !slices.Contains(bl, note.LinkRef{Path: "Boards/Roadmap.canvas", Line: 5}) {
		t.Errorf("backlinks of the shown note = %+v %v", bl, err)
	}
	bl, err = ix.Backlinks(ctx, "People/Ana Lima.md")
	if err != nil || !slices.Contains(bl, note.LinkRef{Path: "Boards/Roadmap.canvas", Line: 4}) {
		t.Errorf("backlinks of the linked note = %+v %v", bl, err)
	}
	ls, err := ix.Links(ctx, "Boards/Roadmap.canvas")
	if err != nil || len(ls.Links) != 2 || !ls.Links[1].Embed || ls.Links[1].Path != "Projects/Garden Plan.md" || ls.Links[1].Subpath != "#Risks" {
		t.Errorf("links of the canvas = %+v %v", ls.Links, err)
	}
	orphans, _ := ix.Orphans(ctx)
	tags, _ := ix.Tags(ctx)
	for _, o := range orphans {
		if strings.HasSuffix(o, ".canvas") {
			t.Errorf("a canvas is listed as an orphan note: %q", orphans)
		}
	}
	for _, tg := range tags {
		if tg.Tag == "idea" {
			t.Errorf("a canvas's text gave the vault a tag: %+v", tags)
		}
	}
}
