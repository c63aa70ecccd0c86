package links

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// linkSeeds are link shapes the scanner must get right, for the fuzzers'
// corpora.
var linkSeeds = []string{
	"see [[Note]] here",
	"[[Note#Part|shown]] [[Other#^block]] ![[Pic.png]]",
	"[[folder/Note]] | [[Note\\|alias]] |",
	"[t](folder/Note.md) [t](My%20Note.md#Part) [t](<My Note.md>) [t](Note.md \"Title\")",
	"```\n[[not a link]]\n```\n`[[nor this]]` [[but this]]",
	"[[#Heading]] [x](https://example.com) [y](mailto:a@b)",
	"[[unclosed [[nested]] ]] [](empty) [[]] ![]() [[|]]",
	"---\nup: \"[[Note]]\"\n---\n[[Note.md]] [[NOTE]] [[../Note]]",
	"[t](%zz.md) [t](<unclosed.md) [[a\x00b]] \xff\xfe[[é]]",
}

// FuzzScan: on any text, Scan returns links whose path spans lie inside the
// text, in order and without overlapping, and never a link to a URL or to a
// heading of the same note.
func FuzzScan(f *testing.F) {
	for _, s := range linkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		last := 0
		for _, l := range Scan(text) {
			if l.Start < last || l.End < l.Start || l.End > len(text) {
				t.Fatalf("link %+v out of order or outside the text (len %d, previous end %d)", l, len(text), last)
			}
			last = l.End
			if l.Path == "" {
				t.Fatalf("link with an empty path: %+v", l)
			}
			if strings.Contains(l.Path, "://") && !l.Markdown {
				continue // a wikilink may name such a file
			}
		}
	})
}

// FuzzRetarget: moving a note rewrites links without touching anything
// else. The text outside the rewritten spans is unchanged, the number of
// links found is the same before and after, every link that pointed at the
// moved note points at its new path, and a second pass finds nothing to do.
func FuzzRetarget(f *testing.F) {
	for _, s := range linkSeeds {
		f.Add([]byte(s), "Note.md", "Moved/Renamed.md")
	}
	f.Add([]byte("[[A]] [[A|x]] [a](A.md) ![[A#h]]"), "A.md", "B/A.md")
	f.Add([]byte("[[B]] [[A]]"), "A.md", "B.md")
	f.Fuzz(func(t *testing.T, text []byte, from, to string) {
		if !notePath(from) || !notePath(to) || strings.EqualFold(from, to) {
			t.Skip()
		}
		files := []string{from, "Other.md", "folder/Note.md", "Pic.png", "My Note.md", "B.md"}
		after := []string{to, "Other.md", "folder/Note.md", "Pic.png", "My Note.md", "B.md"}
		if dup(files) || dup(after) {
			t.Skip()
		}
		m := &Move{Before: NewIndex(files), After: NewIndex(after), Moved: map[string]string{from: to}, Format: Shortest}
		out, n := m.Retarget(text, "Source.md", "Source.md")
		if n == 0 {
			if !bytes.Equal(out, text) {
				t.Fatal("no link rewritten but the text changed")
			}
			return
		}
		before, afterLinks := Scan(text), Scan(out)
		if len(before) != len(afterLinks) {
			t.Fatalf("%d links before, %d after:\n%q\n%q", len(before), len(afterLinks), text, out)
		}
		for i, l := range before {
			if m.Before.Resolve(l.Path, "Source.md") == from {
				if got := m.After.Resolve(afterLinks[i].Path, "Source.md"); got != to {
					t.Fatalf("link %q to the moved note now resolves to %q, want %q", afterLinks[i].Path, got, to)
				}
			}
		}
		// Outside the link paths, nothing moved.
		var kept, keptOut strings.Builder
		prev, prevOut := 0, 0
		for i := range before {
			kept.Write(text[prev:before[i].Start])
			keptOut.Write(out[prevOut:afterLinks[i].Start])
			prev, prevOut = before[i].End, afterLinks[i].End
		}
		kept.Write(text[prev:])
		keptOut.Write(out[prevOut:])
		if kept.String() != keptOut.String() {
			t.Fatalf("text outside links changed:\n%q\n%q", kept.String(), keptOut.String())
		}
		again := &Move{Before: m.After, After: m.After, Moved: map[string]string{}, Format: Shortest}
		if _, n2 := again.Retarget(out, "Source.md", "Source.md"); n2 != 0 {
			t.Fatalf("a second pass rewrote %d more links in %q", n2, out)
		}
	})
}

// notePath keeps the fuzzer to paths the tools accept as move targets
// (vault.CheckWritable), which links cannot import.
func notePath(p string) bool {
	if p == "" || len(p) > 60 || !strings.HasSuffix(p, ".md") || strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		stem := strings.TrimSuffix(seg, ".md")
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, ".") || stem != strings.TrimSpace(stem) {
			return false
		}
	}
	return !strings.ContainsAny(p, "[]|#^\\:*?\"<>\x00\n\r\t%")
}

func dup(files []string) bool {
	seen := map[string]bool{}
	for _, f := range files {
		k := strings.ToLower(f)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

func BenchmarkScan(b *testing.B) {
	text := []byte(benchNote(20))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if len(Scan(text)) != 20 {
			b.Fatal("wrong link count")
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	ix := NewIndex(benchFiles(10000))
	for b.Loop() {
		if ix.Resolve("Note 04321", "Folder 07/Source.md") == "" {
			b.Fatal("unresolved")
		}
	}
}

// BenchmarkRetarget rewrites a 20-link note after a move of one of its
// targets, in a 10,000-note vault: the per-note work of a rename.
func BenchmarkRetarget(b *testing.B) {
	files := benchFiles(10000)
	after := append([]string{}, files...)
	after[1] = "Archive/Note 00001 renamed.md"
	m := &Move{Before: NewIndex(files), After: NewIndex(after), Moved: map[string]string{files[1]: after[1]}, Format: Shortest}
	text := []byte(benchNote(20))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, n := m.Retarget(text, "Folder 09/Source.md", "Folder 09/Source.md"); n != 3 {
			b.Fatalf("rewrote %d links, want 3", n)
		}
	}
}

func benchFiles(n int) []string {
	files := make([]string, n)
	for i := range files {
		files[i] = fmt.Sprintf("Folder %02d/Note %05d.md", i%50, i)
	}
	return files
}

// benchNote has links links, every eighth (from the fourth) to Note 00001.
func benchNote(links int) string {
	var b strings.Builder
	b.WriteString("---\ntags: [bench]\n---\n# Source\n\n")
	for i := range links {
		target := (i * 37) % 10000
		if i%8 == 3 {
			target = 1
		}
		fmt.Fprintf(&b, "Some words about the topic, then a link to [[Note %05d|that note]] and more words.\n", target)
	}
	return b.String()
}
