package vaultindex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// versionDigests: for each snapshot version, a digest of what a sample of
// notes is indexed as (terms with their per-field counts, and structure).
// A snapshot keeps those, so when they change a snapshot of the old code
// would answer wrong: snapVersion must change with them.
var versionDigests = map[int]string{
	1: "d91c55e87554720b",
	2: "fed78bb93f80c77b", // ー, 々 and half-width kana inside CJK runs
	3: "f7c48203b1271625", // spacing marks (Indic vowel signs) inside words
	4: "c7662fed6ad0f8bf", // each term's body positions, for phrases
	5: "c7662fed6ad0f8bf", // the same; the dictionary kept in the order of its text
	6: "c7662fed6ad0f8bf", // the same; notes and terms in gob streams of their own
	// From here the sample has the tag "/#seed/" (read as "#seed/" before).
	7: "9c5a42c6302e6704", // tags lose every leading '#' and '/'
	// From here the sample has a line of Thai and Lao.
	8: "1ab457e55eecb45a", // Thai, Lao, Khmer and Myanmar runs as bigrams
	9: "04c9ae91c1d2ce36", // the words of each link's line (link text)
}

const versionSample = `---
tags: [garden, project/active, "/#seed/"]
aliases: [Backyard]
status: doing
rating: 4.5
done: false
when: 2026-11-26
nested: {a: [1, two]}
---
# Garden Plan
Plant tomatoes in spring, café crème, naïve. ^plant
## Risks #frost
Frost in early spring. See [[Ana Lima#Notes|Ana]] and ![[pic.png]], [md](Other%20Note.md).
東京の庭園計画について。トマトを植える。同步冲突 PDF埋め込み
ノートとデータ、人々、ｶﾞｲﾄﾞ。 किताब पढ़ना
บันทึกประจำวัน ບັນທຶກ
- [ ] a task 📅 2026-12-01
` + "```\ncode #nottag [[NotALink]]\n```\n"

// TestSnapshotVersion fails when the way a note is indexed changed without
// snapVersion changing with it.
func TestSnapshotVersion(t *testing.T) {
	src := newMem(map[string]string{"Projects/Garden Plan.md": versionSample, "Canvas.canvas": `{"nodes":[{"id":"a","type":"text","text":"hello [[Garden Plan]]","x":0,"y":0,"width":10,"height":10}],"edges":[]}`})
	ix := New(src)
	var out []any
	for _, p := range []string{"Projects/Garden Plan.md", "Canvas.canvas"} {
		pn := ix.read(p)
		counts := map[string][nFields]uint8{}
		for l, term := range pn.terms {
			counts[term] = pn.counts[l]
		}
		// The body's terms in order: the positions phrases are answered
		// from (from version 4).
		seq := make([]string, len(pn.seq))
		for i, l := range pn.seq {
			seq[i] = pn.terms[l]
		}
		// The words of each link's line (from version 9).
		anchors := make([][]uint32, len(pn.anchors))
		for k, local := range pn.anchors {
			for _, l := range local {
				anchors[k] = append(anchors[k], uint32(l))
			}
		}
		out = append(out, counts, pn.lens, docToSnap(&doc{path: p, meta: pn.meta, anchors: anchors}, pn.terms), seq)
		pn.release()
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:8])
	if want := versionDigests[snapVersion]; got != want {
		t.Errorf("what a note is indexed as changed (digest %s, version %d has %q): a saved index of the code before would answer wrong.\n"+
			"Bump snapVersion in snapshot.go and add %d: %q to versionDigests.", got, snapVersion, want, snapVersion+1, got)
	}
}
