package links

import (
	"reflect"
	"testing"
)

func paths(ls []Link) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Path)
	}
	return out
}

func TestScan(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"wikilink", "see [[Note]] here", []string{"Note"}},
		{"alias and heading", "[[Note#Part|shown]] [[Other#^block]]", []string{"Note", "Other"}},
		{"embed", "![[Pic.png]]", []string{"Pic.png"}},
		{"folder path", "[[folder/Note]]", []string{"folder/Note"}},
		{"table pipe", `| [[Note\|alias]] |`, []string{"Note"}},
		{"same-note heading is not a file link", "[[#Heading]]", nil},
		{"markdown", "[t](folder/Note.md)", []string{"folder/Note.md"}},
		{"markdown encoded", "[t](My%20Note.md#Part)", []string{"My Note.md"}},
		{"markdown angle", "[t](<My Note.md>)", []string{"My Note.md"}},
		{"markdown title", `[t](Note.md "Title")`, []string{"Note.md"}},
		{"markdown embed", "![alt](img/a.png)", []string{"img/a.png"}},
		{"urls are not internal", "[w](https://x.org/a.md) [m](mailto:a@b.c) [o](obsidian://open?x)", nil},
		{"inline code", "`[[Not]]` and [[Yes]]", []string{"Yes"}},
		{"double backtick code", "``a ` [[Not]]`` [[Yes]]", []string{"Yes"}},
		{"unclosed backtick is text", "a ` b [[Yes]]", []string{"Yes"}},
		{"fenced code", "```\n[[Not]]\n```\n[[Yes]]\n", []string{"Yes"}},
		{"tilde fence", "~~~md\n[[Not]]\n~~~~\n[[Yes]]", []string{"Yes"}},
		{"unclosed fence runs to the end", "[[Yes]]\n```\n[[Not]]\n", []string{"Yes"}},
		{"shorter fence does not close", "````\n```\n[[Not]]\n````\n[[Yes]]", []string{"Yes"}},
		{"escaped", `\[[Not]] [[Yes]]`, []string{"Yes"}},
		{"unterminated wikilink", "[[Not\n]] [[Yes]]", []string{"Yes"}},
		{"frontmatter links", "---\nup: \"[[Parent]]\"\n---\n", []string{"Parent"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := paths(Scan([]byte(c.text))); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Scan(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestScanSpans(t *testing.T) {
	text := "a ![[Old#H|x]] b [t](<Old.md#h>) [u](dir/Old%20x.md)"
	var got []string
	for _, l := range Scan([]byte(text)) {
		got = append(got, text[l.Start:l.End])
	}
	want := []string{"Old", "Old.md", "dir/Old%20x.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("spans = %q, want %q", got, want)
	}
}

func TestResolve(t *testing.T) {
	ix := NewIndex([]string{
		"Note.md", "b/Note.md", "a/b/Note.md", "zzzz/Other.md", "a/b/c/Other.md",
		"img/Pic.png", "Topic.md", "deep/x/Topic.md", "Archive/Plan.md",
	})
	cases := []struct{ link, source, want string }{
		{"Note", "b/Src.md", "Note.md"},             // an exact vault path wins over a neighbour
		{"b/Note", "a/b/Src.md", "b/Note.md"},       // exact again
		{"note", "x.md", "Note.md"},                 // case-insensitive
		{"Note.md", "x.md", "Note.md"},              // with the extension
		{"Other", "a/b/c/Src.md", "a/b/c/Other.md"}, // own folder wins
		{"Other", "Src.md", "zzzz/Other.md"},        // else the shortest path
		{"Other", "a/b/Src.md", "zzzz/Other.md"},    // an ancestor folder counts for nothing
		{"c/Other", "Src.md", "a/b/c/Other.md"},     // trailing folders
		{"Pic", "Src.md", ""},                       // non-notes need their extension
		{"Pic.png", "Src.md", "img/Pic.png"},        //
		{"../Note", "b/Src.md", "Note.md"},          // relative
		{"./Note", "a/b/Src.md", "a/b/Note.md"},     //
		{"../../../x", "a/Src.md", ""},              // never above the root
		{"/Archive/Plan", "deep/Src.md", "Archive/Plan.md"},
		{"Missing", "Src.md", ""},
	}
	for _, c := range cases {
		if got := ix.Resolve(c.link, c.source); got != c.want {
			t.Errorf("Resolve(%q from %q) = %q, want %q", c.link, c.source, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	ix := NewIndex([]string{"Note.md", "b/Note.md", "Solo/Unique.md", "a/Deep.md", "img/P q.png"})
	cases := []struct {
		target, source string
		format         Format
		md             bool
		want           string
	}{
		{"Solo/Unique.md", "x.md", Shortest, false, "Unique"},
		{"Solo/Unique.md", "x.md", Shortest, true, "Unique.md"},
		{"b/Note.md", "x.md", Shortest, false, "b/Note"}, // the name alone means Note.md
		{"b/Note.md", "b/x.md", Shortest, false, "b/Note"},
		{"Note.md", "b/x.md", Shortest, false, "Note"},
		{"Solo/Unique.md", "x.md", Absolute, false, "Solo/Unique"},
		{"Solo/Unique.md", "a/x.md", Relative, false, "../Solo/Unique"},
		{"img/P q.png", "x.md", Shortest, false, "P q.png"},
	}
	for _, c := range cases {
		if got := ix.Text(c.target, c.source, c.format, c.md); got != c.want {
			t.Errorf("Text(%q from %q, %s, md=%v) = %q, want %q", c.target, c.source, c.format, c.md, got, c.want)
		}
	}
}

func TestRetarget(t *testing.T) {
	files := []string{"Old.md", "notes/Src.md", "other/Keep.md", "b/Dup.md", "Dup.md"}
	cases := []struct {
		name           string
		from, to       string
		source, text   string
		format         Format
		want           string
		wantN          int
		newSourceMoved bool
	}{
		{name: "plain", from: "Old.md", to: "New.md", text: "see [[Old]].", want: "see [[New]].", wantN: 1},
		{name: "alias heading embed", from: "Old.md", to: "New.md", text: "[[Old|a]] [[Old#H]] ![[Old#^b]] [[old]]",
			want: "[[New|a]] [[New#H]] ![[New#^b]] [[New]]", wantN: 4},
		{name: "folder path", from: "Old.md", to: "arch/Old.md", text: "[[Old]] [[Old.md]]", want: "[[Old]] [[Old.md]]", wantN: 0},
		{name: "to an ambiguous name", from: "Old.md", to: "arch/Dup.md", text: "[[Old]] [[Dup]]", want: "[[arch/Dup]] [[Dup]]", wantN: 1},
		{name: "markdown", from: "Old.md", to: "My Folder/New Name.md", text: "[t](Old.md) [u](<Old.md#h>) [v](./../Old.md)",
			want: "[t](New%20Name.md) [u](<New Name.md#h>) [v](New%20Name.md)", wantN: 3},
		{name: "markdown encoded source", from: "other/Keep.md", to: "other/Kept (v2).md", text: "[k](other/Keep.md)",
			want: "[k](Kept%20%28v2%29.md)", wantN: 1},
		{name: "code untouched", from: "Old.md", to: "New.md", text: "`[[Old]]`\n```\n[[Old]]\n```\n[[Old]]", want: "`[[Old]]`\n```\n[[Old]]\n```\n[[New]]", wantN: 1},
		{name: "unresolved untouched", from: "Old.md", to: "New.md", text: "[[Nope]] [[https://x]]", want: "[[Nope]] [[https://x]]"},
		{name: "absolute format", from: "Old.md", to: "x/New.md", format: Absolute, text: "[[Old]]", want: "[[x/New]]", wantN: 1},
		{name: "relative links of the moved note", from: "notes/Src.md", to: "deep/er/Src.md", source: "notes/Src.md",
			newSourceMoved: true, text: "[k](../other/Keep.md) [[Old]]", want: "[k](../../other/Keep.md) [[Old]]", wantN: 1, format: Relative},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var after []string
			for _, f := range files {
				if f == c.from {
					f = c.to
				}
				after = append(after, f)
			}
			m := &Move{Before: NewIndex(files), After: NewIndex(after), Moved: map[string]string{c.from: c.to}, Format: c.format}
			src := c.source
			if src == "" {
				src = "notes/Src.md"
			}
			newSrc := src
			if c.newSourceMoved {
				newSrc = c.to
			}
			got, n := m.Retarget([]byte(c.text), src, newSrc)
			if string(got) != c.want || n != c.wantN {
				t.Errorf("Retarget:\n got %q (%d)\nwant %q (%d)", got, n, c.want, c.wantN)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	if got, want := Encode("a b/(c)#%é.md"), "a%20b/%28c%29%23%25é.md"; got != want {
		t.Fatalf("Encode = %q, want %q", got, want)
	}
}

// TestTextKeepsExtensionWhenNeeded: the fallback link to B.md.md cannot
// drop .md, since [[B.md]] is B.md (found by FuzzRetarget).
func TestTextKeepsExtensionWhenNeeded(t *testing.T) {
	ix := NewIndex([]string{"B.md", "B.md.md"})
	for _, f := range []Format{Shortest, Relative, Absolute} {
		got := ix.Text("B.md.md", "Source.md", f, false)
		if ix.Resolve(got, "Source.md") != "B.md.md" {
			t.Errorf("%s: [[%s]] does not resolve to B.md.md", f, got)
		}
	}
}
