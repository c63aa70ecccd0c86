package links

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// meaning is where one link leads: the file, and the heading of it each
// part of its subpath names (nil for none or a block).
type meaning struct {
	file    string
	heading []int
}

// meanings are where the links of text, the note at source, lead, given
// the vault's files and each note's outline.
func meanings(text []byte, source string, files *Index, outlines map[string][]Heading) []meaning {
	var out []meaning
	for _, l := range ScanAll(text) {
		m := meaning{file: source}
		if l.Path != "" {
			m.file = files.Resolve(l.Path, source)
		}
		if l.SubEnd > l.SubStart {
			parts := strings.Split(string(text[l.SubStart:l.SubEnd]), "#")
			for i, p := range parts {
				if l.Markdown && !l.Angle {
					if d, err := url.PathUnescape(p); err == nil {
						parts[i] = d
					}
				}
			}
			if !strings.HasPrefix(parts[0], "^") {
				m.heading = resolveChain(outlines[m.file], parts)
			}
		}
		out = append(out, m)
	}
	return out
}

// TestHeadingRenameProperty: in random vaults (headings that repeat and
// differ only by case or punctuation, every form of link: wikilinks with
// and without alias, embeds, subpaths through parents, Markdown links
// encoded and in <>, links to a note's own headings), renaming a heading
// and then, half the time, moving its note (Move.Retarget, as a note's
// rename rewrites links) leaves every link leading where it led: the same
// file (moved) and the same heading, by its place in the outline.
func TestHeadingRenameProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	texts := []string{"Plan", "plan", "Risks", "Risks!", "Team", "Notes", "notes", "Open questions", "Q&A", "Café"}
	names := []string{"Plan", "Notes", "Café menu", "Q&A", "Log"}
	dirs := []string{"", "A/", "B/C/"}
	rounds := 400
	for round := range rounds {
		var paths []string
		for range 2 + r.IntN(5) {
			paths = append(paths, dirs[r.IntN(len(dirs))]+names[r.IntN(len(names))]+".md")
		}
		slices.Sort(paths)
		paths = slices.Compact(paths)
		outlines := map[string][]Heading{}
		for _, p := range paths {
			var o []Heading
			for range r.IntN(7) {
				o = append(o, Heading{Level: 1 + r.IntN(3), Text: texts[r.IntN(len(texts))]})
			}
			outlines[p] = o
		}
		// A subpath naming a heading of p (through some of its parents),
		// or any text.
		subpath := func(p string) []string {
			o := outlines[p]
			if len(o) == 0 || r.IntN(5) == 0 {
				return []string{texts[r.IntN(len(texts))]}
			}
			i := r.IntN(len(o))
			chain := []string{o[i].Text}
			level := o[i].Level
			for j := i - 1; j >= 0; j-- {
				if o[j].Level < level {
					level = o[j].Level
					if r.IntN(2) == 0 {
						chain = append([]string{o[j].Text}, chain...)
					}
				}
			}
			if r.IntN(4) == 0 {
				chain[len(chain)-1] = strings.ToUpper(chain[len(chain)-1])
			}
			return chain
		}
		notes := map[string][]byte{}
		for _, src := range paths {
			var b strings.Builder
			for range r.IntN(8) {
				dst := paths[r.IntN(len(paths))]
				stem := strings.TrimSuffix(dst[strings.LastIndexByte(dst, '/')+1:], ".md")
				sub := subpath(dst)
				switch r.IntN(7) {
				case 0:
					fmt.Fprintf(&b, "[[%s#%s]] ", stem, strings.Join(sub, "#"))
				case 1:
					fmt.Fprintf(&b, "[[%s#%s|an alias]] ", dst, strings.Join(sub, "#"))
				case 2:
					fmt.Fprintf(&b, "![[%s#%s]] ", stem, strings.Join(sub, "#"))
				case 3:
					enc := make([]string, len(sub))
					for i, s := range sub {
						enc[i] = Encode(s)
					}
					fmt.Fprintf(&b, "[text](%s#%s) ", Encode(dst), strings.Join(enc, "#"))
				case 4:
					fmt.Fprintf(&b, "[text](<%s#%s>) ", dst, strings.Join(sub, "#"))
				case 5:
					fmt.Fprintf(&b, "[[#%s]] ", strings.Join(subpath(src), "#"))
				case 6:
					fmt.Fprintf(&b, "[[%s#^block]] ", stem)
				}
				if r.IntN(3) == 0 {
					b.WriteString("\n")
				}
			}
			notes[src] = []byte(b.String())
		}
		target := paths[r.IntN(len(paths))]
		if len(outlines[target]) == 0 {
			continue
		}
		files := NewIndex(paths)
		before := map[string][]meaning{}
		for p, text := range notes {
			before[p] = meanings(text, p, files, outlines)
		}
		index := r.IntN(len(outlines[target]))
		newText := fmt.Sprintf("Renamed %d & more", round)
		h := &HeadingRename{Target: target, Outline: outlines[target], Index: index, New: newText, Files: files}
		for p, text := range notes {
			notes[p], _ = h.Rewrite(text, p)
		}
		renamed := slices.Clone(outlines[target])
		renamed[index].Text = newText
		outlines[target] = renamed
		// Half the time the note then moves, as a note's rename does.
		moved := map[string]string{}
		after, afterFiles := paths, files
		if r.IntN(2) == 0 {
			to := "Moved/" + fmt.Sprint(round) + " new name.md"
			moved[target] = to
			after = make([]string, len(paths))
			for i, p := range paths {
				after[i] = p
				if p == target {
					after[i] = to
				}
			}
			afterFiles = NewIndex(after)
			m := &Move{Before: files, After: afterFiles, Moved: moved, Format: Shortest}
			next := map[string][]byte{}
			for p, text := range notes {
				np := p
				if p == target {
					np = to
				}
				next[np], _ = m.Retarget(text, p, np)
			}
			notes = next
			outlines[to] = outlines[target]
			delete(outlines, target)
		}
		for p, was := range before {
			np := p
			if to, ok := moved[p]; ok {
				np = to
			}
			now := meanings(notes[np], np, afterFiles, outlines)
			if len(now) != len(was) {
				t.Fatalf("round %d, %s: %d links, were %d:\n%s", round, np, len(now), len(was), notes[np])
			}
			for k := range was {
				wantFile := was[k].file
				if to, ok := moved[wantFile]; ok {
					wantFile = to
				}
				if now[k].file != wantFile || !slices.Equal(now[k].heading, was[k].heading) {
					t.Fatalf("round %d: link %d of %s leads to %s %v, led to %s %v (renamed heading %d of %s to %q)\n%s",
						round, k, np, now[k].file, now[k].heading, was[k].file, was[k].heading, index, target, newText, notes[np])
				}
			}
		}
	}
}
