// Package vaultgen writes generated Obsidian vaults for benchmarks and the
// search relevance test: notes in folders with frontmatter (tags, dates,
// statuses), headings, paragraphs whose words follow a Zipf law over a
// large vocabulary, inline #tags, wikilinks (some unresolved), code blocks,
// a few Japanese notes, and the hand-written notes of the relevance set
// (relevance/notes), which the queries in relevance/queries.json must
// find among them. The same size and seed always give the same vault.
package vaultgen

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

//go:embed relevance
var relevance embed.FS

// Query is one labelled query of the relevance set.
type Query struct {
	Query  string `json:"query"`
	Expect string `json:"expect"`
	// Kind is "keyword" (words as typed into a search box) or "sentence"
	// (a question as asked in a sentence); Lang is the query's language.
	Kind string `json:"kind"`
	Lang string `json:"lang"`
}

// Queries returns the relevance set: queries and the note each must find.
func Queries() ([]Query, error) {
	data, err := relevance.ReadFile("relevance/queries.json")
	if err != nil {
		return nil, err
	}
	var qs []Query
	return qs, json.Unmarshal(data, &qs)
}

// Stats describes a generated vault.
type Stats struct {
	Notes int
	Bytes int64
}

// common words, which every note uses, topic words the relevance notes
// share with the generated ones (so that finding them takes ranking, not
// luck), and tags.
var (
	common = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you
		were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other
		new some could time these two may then do first any my now such like our over man me even most made after also did many before must
		through back years where much your way well down should because each just those people how too little state good very make world still
		own see men work long get here between both life being under never day same another know while last might us great old year off come since
		against go came right used take three`)
	topic = strings.Fields(`garden plan project meeting review budget travel trip recipe note idea draft weekly daily archive reading
		book summary outline question answer task list reference health running sleep finance tax home kitchen network backup database
		incident deadline checklist training design website podcast learning notes permanent business quarterly renovation service pressure`)
	tags     = strings.Fields("project idea meeting reading daily review draft garden travel work tech health finance home learning person")
	statuses = strings.Fields("todo doing done idea planning resolved")
	japanese = []string{"今日は会議の議事録を整理した。", "新しいプロジェクトの計画を立てる。", "週末は庭の手入れをする予定。",
		"読書メモ：第三章の要約。", "来月の予算を見直す必要がある。", "東京で友人と昼食をとった。", "アイデアを書き留めておく。"}
)

// vocabulary returns n made-up words of two to four syllables.
func vocabulary(r *rand.Rand, n int) []string {
	cons := []string{"b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st", "tr", "ch", "sh"}
	vows := []string{"a", "e", "i", "o", "u", "ai", "ou", "ea"}
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(cons[r.IntN(len(cons))])
			b.WriteString(vows[r.IntN(len(vows))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// Generate writes a vault of n generated notes, plus the relevance notes,
// into dir (which it empties first). Notes average about 4 KB.
func Generate(dir string, n int, seed uint64) (Stats, error) {
	return generate(dir, n, seed, profile{minWords: 60, spanWords: 90})
}

// GenerateLarge writes a vault for measuring scale: notes of 3 KB on
// average, and one in every 500 a large one of 100–400 KB (a pasted log
// or transcript), as vaults in use have.
func GenerateLarge(dir string, n int, seed uint64) (Stats, error) {
	return generate(dir, n, seed, profile{minWords: 35, spanWords: 60, largeEvery: 500})
}

// GenerateDataview writes the vault Generate writes, each note with
// Dataview's inline fields too (a rating, a due date and a mood in the
// three forms) and a task list with fields and emoji dates: the notes
// Dataview queries read.
func GenerateDataview(dir string, n int, seed uint64) (Stats, error) {
	return generate(dir, n, seed, profile{minWords: 12, spanWords: 40, dataview: true})
}

// profile shapes the generated notes: paragraphs of minWords to
// minWords+spanWords words, every largeEvery-th note large, and with
// dataview inline fields and tasks.
type profile struct {
	minWords, spanWords, largeEvery int
	dataview                        bool
}

func generate(dir string, n int, seed uint64, pr profile) (Stats, error) {
	if err := os.RemoveAll(dir); err != nil {
		return Stats{}, err
	}
	if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
		return Stats{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte("{}\n"), 0o644); err != nil {
		return Stats{}, err
	}
	var st Stats
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	vocab := vocabulary(r, 20000)
	words := append(append(append([]string{}, common...), topic...), vocab...)
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	word := func() string { return words[zipf.Uint64()] }
	title := func(i int) string {
		return fmt.Sprintf("%s %s %05d", strings.ToUpper(vocab[i%len(vocab)][:1])+vocab[i%len(vocab)][1:], topic[i%len(topic)], i)
	}
	folder := func(i int) string {
		return fmt.Sprintf("%s/%s", strings.ToUpper(tags[i%len(tags)][:1])+tags[i%len(tags)][1:], fmt.Sprintf("%02d", i%7))
	}
	// The fields have a source of their own: the rest of the vault is
	// the same with them or without.
	fr := rand.New(rand.NewPCG(seed+1, uint64(n)))
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %s\ntags: [%s, %s]\ncreated: 2026-%02d-%02d\nstatus: %s\n---\n\n# %s\n\n",
			title(i), tags[r.IntN(len(tags))], tags[r.IntN(len(tags))], 1+i%12, 1+i%28, statuses[r.IntN(len(statuses))], title(i))
		if pr.dataview {
			fields(&b, fr, i)
		}
		if i%100 == 7 {
			for range 20 + r.IntN(40) {
				b.WriteString(japanese[r.IntN(len(japanese))])
			}
			b.WriteString("\n\n")
		}
		for s := range 2 + r.IntN(3) {
			if s > 0 {
				fmt.Fprintf(&b, "## %s %s\n\n", strings.ToUpper(word()[:1]), word())
			}
			for p := range 2 + r.IntN(2) {
				for w := range pr.minWords + r.IntN(pr.spanWords) {
					if w > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(word())
				}
				switch r.IntN(6) {
				case 0:
					fmt.Fprintf(&b, " #%s", tags[r.IntN(len(tags))])
				case 1:
					fmt.Fprintf(&b, " See [[%s]].", title(r.IntN(n)))
				case 2:
					fmt.Fprintf(&b, " Also [[%s/%s|that note]] and [[Missing %d]].", folder(p), title(r.IntN(n)), r.IntN(50))
				case 3:
					b.WriteString("\n\n```\ncode #nottag [[NotALink]]\n```")
				}
				b.WriteString("\n\n")
			}
		}
		if pr.largeEvery > 0 && i%pr.largeEvery == pr.largeEvery/2 {
			large(&b, r, word, 100<<10+r.IntN(300<<10))
		}
		p := filepath.Join(dir, filepath.FromSlash(folder(i)), title(i)+".md")
		if err := write(p, b.String()); err != nil {
			return Stats{}, err
		}
		st.Notes++
		st.Bytes += int64(b.Len())
	}
	err := fs.WalkDir(relevance, "relevance/notes", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := relevance.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "relevance/notes/")
		st.Notes++
		st.Bytes += int64(len(data))
		return write(filepath.Join(dir, filepath.FromSlash(path.Clean(rel))), string(data))
	})
	if err != nil {
		return st, err
	}
	return st, age(dir)
}

// fields appends Dataview's inline fields in their three forms, and
// tasks with fields and emoji dates.
func fields(b *strings.Builder, r *rand.Rand, i int) {
	moods := []string{"calm", "busy", "tired", "glad"}
	fmt.Fprintf(b, "rating:: %d\nhours:: %d.%d\nReviewed on [due:: 2026-%02d-%02d] feeling (mood:: %s).\n\n",
		1+r.IntN(5), r.IntN(40), r.IntN(10), 1+r.IntN(12), 1+r.IntN(28), moods[r.IntN(len(moods))])
	for range 1 + r.IntN(3) {
		if r.IntN(3) == 0 {
			fmt.Fprintf(b, "- [x] done %d ✅ 2026-%02d-%02d\n", i, 1+r.IntN(12), 1+r.IntN(28))
		} else {
			fmt.Fprintf(b, "- [ ] todo %d [priority:: %d] 📅 2026-%02d-%02d\n", i, 1+r.IntN(3), 1+r.IntN(12), 1+r.IntN(28))
		}
	}
	b.WriteString("\n")
}

// large appends about size bytes of a pasted log: timestamped lines.
func large(b *strings.Builder, r *rand.Rand, word func() string, size int) {
	b.WriteString("## Log\n\n```\n")
	for end := b.Len() + size; b.Len() < end; {
		fmt.Fprintf(b, "2026-%02d-%02dT%02d:%02d:%02d level=%s msg=%q", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60),
			[]string{"info", "debug", "warn"}[r.IntN(3)], word()+" "+word())
		for range 3 + r.IntN(6) {
			fmt.Fprintf(b, " %s=%s", word(), word())
		}
		b.WriteByte('\n')
	}
	b.WriteString("```\n")
}

// age dates every file and folder a month back, as in a vault in use:
// the index re-reads files changed in the last seconds on every call
// (the racy-clean rule), which a freshly written vault would all be.
func age(dir string) error {
	old := time.Now().AddDate(0, -1, 0)
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if err := os.Chtimes(d, old, old); err != nil {
			return err
		}
	}
	return nil
}

func write(p, content string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// DataviewQuery is one query the Dataview benchmarks ask of the vault
// GenerateDataview writes.
type DataviewQuery struct{ Name, Query string }

// DataviewQueries are a folder and a tag with WHERE, SORT and LIMIT, a
// whole-vault TABLE with GROUP BY, and open tasks of a tag due before a
// day.
func DataviewQueries() []DataviewQuery {
	return []DataviewQuery{
		{"folder WHERE SORT LIMIT", `TABLE rating, due FROM "Garden/03" WHERE rating >= 3 SORT due DESC LIMIT 20`},
		{"tag WHERE SORT LIMIT", `LIST FROM #reading WHERE mood = "calm" SORT rating DESC, file.name LIMIT 20`},
		{"whole vault GROUP BY", `TABLE length(rows) AS notes, sum(rows.rating) AS ratings FROM "" GROUP BY status`},
		{"open tasks due soon", `TASK FROM #garden WHERE !completed AND due < date(2026-03-01) SORT due LIMIT 50`},
	}
}
