package vaultindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// FuzzSearch: any query over any note runs without a panic, in both
// modes; every hit is a note of the vault, its snippets point at lines it
// has, and taking the marks out of a snippet gives back (a cut of) that
// line. Highlight keeps a line's text as it was, marks aside.
func FuzzSearch(f *testing.F) {
	f.Add("garden plan", "# Garden\nplan the garden #home [[Plan]]\n", false)
	f.Add(`"a b" -c OR d tag:x [p:v] path:"A B" file:z`, "---\np: v\n---\na b #x\n", false)
	f.Add("(a|b)+\\n", "a\nb", true)
	f.Add("東京 庭", "東京の庭園", false)
	f.Add("บันทึก", "บันทึกประจำวัน ๚ ខ្មែរ។ မှတ်စု။", false)
	f.Fuzz(func(t *testing.T, query, content string, regex bool) {
		src := newMem(map[string]string{"A B/z.md": content, "Other.md": "plain text", "pic.png": content})
		ix := New(src)
		mode := note.SearchText
		if regex {
			mode = note.SearchRegex
		}
		res, err := ix.Search(context.Background(), note.SearchRequest{Query: query, Mode: mode, Limit: 20})
		if err != nil {
			return // invalid queries are refused with a field error
		}
		lines := map[string][]string{"A B/z.md": strings.Split(content, "\n"), "Other.md": {"plain text"}}
		if res.Total != len(res.Hits) || len(res.Hits) > 2 {
			t.Fatalf("total %d, hits %+v", res.Total, res.Hits)
		}
		for _, h := range res.Hits {
			ls, ok := lines[h.Path]
			if !ok {
				t.Fatalf("hit %q is not a note", h.Path)
			}
			for _, s := range h.Snippets {
				if s.Line < 1 || s.Line > len(ls) {
					t.Fatalf("snippet line %d of %d", s.Line, len(ls))
				}
				plain := strings.Trim(strings.NewReplacer("<mark>", "", "</mark>", "").Replace(s.Text), "…")
				if !strings.Contains(strings.TrimSuffix(ls[s.Line-1], "\r"), plain) && !strings.Contains(ls[s.Line-1], "<mark>") {
					t.Fatalf("snippet %q is not from line %q", s.Text, ls[s.Line-1])
				}
			}
		}
		for _, l := range lines["A B/z.md"] {
			if strings.Contains(l, "<mark>") || strings.Contains(l, "</mark>") || strings.Contains(l, "…") {
				continue
			}
			marked := Highlight(query, l)
			if plain := strings.Trim(strings.NewReplacer("<mark>", "", "</mark>", "").Replace(marked), "…"); !strings.Contains(l, plain) {
				t.Fatalf("Highlight(%q, %q) = %q", query, l, marked)
			}
		}
	})
}

// FuzzSnapshot: any bytes, given a correct checksum so that the decoder
// reads them through, either are refused or load into an index that,
// once checked against the vault, answers as one built from the notes:
// nothing in a snapshot can panic the server or stand in for a note.
func FuzzSnapshot(f *testing.F) {
	st := newStore()
	ix := New(newMem(testVault), WithStore(st, "vault"))
	if err := ix.view(context.Background(), func() error { return nil }); err != nil {
		f.Fatal(err)
	}
	ix.Close()
	if err := ix.Save(); err != nil {
		f.Fatal(err)
	}
	good := st.bytes()
	f.Add(good[:len(good)-4])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		data := binary.BigEndian.AppendUint32(bytes.Clone(body), crc32.Checksum(body, castagnoli))
		if _, err := readSnapshot(bytes.NewReader(data), "vault", nil); err != nil {
			return
		}
		src := newMem(testVault)
		st := newStore()
		st.set(data)
		got := answers(t, New(src, WithStore(st, "vault")), src)
		if want := answers(t, New(src), src); !reflect.DeepEqual(got, want) {
			t.Errorf("answers from a snapshot differ from a fresh build:\n got %v\nwant %v", got, want)
		}
	})
}
