package vaultindex

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
)

// A snapshot is the index written out with encoding/gob: a stream of a
// header and the notes in chunks; a stream of the terms with their
// postings in chunks, and their order (dict.go); the positions section
// (snappos.go), raw; where the second stream and the positions begin
// (snapterms.go); then the CRC-32C of every byte before it, as 4 bytes. Chunks keep what is buffered while
// writing or reading to one chunk, not the whole index.
// gob was measured against encoding/json on the same 10,000-note index
// (see docs/benchmarks.md): it is smaller and several times faster to
// read, and it is the standard library's own format for Go values.

// snapFormat and snapVersion identify a snapshot this code can read.
// snapVersion changes whenever what a note is indexed as changes
// (tokenizer, fields, metadata); TestSnapshotVersion fails until it does.
const (
	snapFormat  = "obsidian-mcp vaultindex snapshot"
	snapVersion = 9
)

type snapHeader struct {
	Format  string
	Version int
	// Tag is what the program said the index is of (WithStore): a
	// snapshot of another vault, or by another build, is not used.
	Tag                    string
	Docs, Terms, Postings  int
	Saved                  time.Time
	DocChunk, PostingChunk int
}

// foreign says why a snapshot with this header is not this index's, if it
// is not: another format, version or tag.
func (h *snapHeader) foreign(tag string) error {
	switch {
	case h.Format != snapFormat:
		return errForeign{"format " + h.Format}
	case h.Version != snapVersion:
		return errForeign{fmt.Sprintf("version %d, this program writes %d", h.Version, snapVersion)}
	case h.Tag != tag:
		return errForeign{"made for " + h.Tag}
	}
	return nil
}

type snapDoc struct {
	Path             string
	Mod, ReadAt      int64 // Unix nanoseconds
	Size             int64
	ID               uint64
	Lens             [nFields]uint32
	Properties       []snapProperty
	FrontmatterError string
	BodyLine, Lines  int
	Headings         []metadata.Heading
	Blocks           []metadata.Block
	Tags             []metadata.Tag
	Aliases          []string
	Links            []metadata.Link
	// Anchors are the words of each link's line (anchors.go).
	Anchors [][]string
}

type snapProperty struct {
	Key, Type string
	Value     snapValue
}

// snapValue is a property value (string, int64, float64, bool, nil, []any
// or map[string]any) as a struct gob writes without registering types.
type snapValue struct {
	Kind uint8
	S    string
	I    int64
	F    float64
	L    []snapValue
	K    []string // an object's keys, beside their values in L
}

const (
	vNil = iota
	vString
	vInt
	vFloat
	vTrue
	vFalse
	vList
	vObject
)

// snapTerms is a chunk of terms with their postings as they are kept in
// memory (plist): Data holds each term's list in turn, Size bytes each.
type snapTerms struct {
	Text  []string
	Count []uint32 // postings per term
	Size  []uint32
	Data  []byte
	// PosSize is each term's positions' size in the positions section
	// that follows the values (positions.go).
	PosSize []uint32
}

const (
	docChunk     = 2048
	postingChunk = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encode writes the index as a snapshot, compacting it first (the lock is
// held).
func (ix *Index) encode(w io.Writer, tag string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	sum := crc32.New(castagnoli)
	cw := &countWriter{w: io.MultiWriter(bw, sum)}
	enc := gob.NewEncoder(cw)
	// Notes taken out leave their postings, dead, and a hole in the ids:
	// the snapshot has neither (see plist).
	if ix.dead > 0 {
		ix.compact()
	}
	n := len(ix.docs)
	terms, total := 0, 0
	for _, l := range ix.postings {
		if l.n > 0 {
			terms++
			total += int(l.n)
		}
	}
	h := snapHeader{Format: snapFormat, Version: snapVersion, Tag: tag, Docs: n, Terms: terms, Postings: total,
		Saved: time.Now().UTC(), DocChunk: docChunk, PostingChunk: postingChunk}
	if err := enc.Encode(&h); err != nil {
		return err
	}
	chunk := make([]snapDoc, 0, docChunk)
	flushDocs := func() error {
		err := enc.Encode(chunk)
		chunk = chunk[:0]
		return err
	}
	for _, d := range ix.docs {
		if d == nil {
			continue
		}
		chunk = append(chunk, docToSnap(d, ix.termText))
		if len(chunk) == docChunk {
			if err := flushDocs(); err != nil {
				return err
			}
		}
	}
	if len(chunk) > 0 {
		if err := flushDocs(); err != nil {
			return err
		}
	}
	// The terms are a gob stream of their own, which a restart decodes
	// beside the notes', on another core.
	termsAt := cw.n
	enc = gob.NewEncoder(cw)
	var st snapTerms
	flushTerms := func() error {
		err := enc.Encode(&st)
		st = snapTerms{Text: st.Text[:0], Count: st.Count[:0], Size: st.Size[:0], Data: st.Data[:0], PosSize: st.PosSize[:0]}
		return err
	}
	for t, l := range ix.postings {
		if l.n == 0 {
			continue
		}
		_, sealedSize := ix.sealed.region(uint32(t))
		st.Text = append(st.Text, ix.termText[t])
		st.Count = append(st.Count, l.n)
		st.Size = append(st.Size, uint32(len(l.data)))
		st.Data = append(st.Data, l.data...)
		st.PosSize = append(st.PosSize, uint32(sealedSize)+uint32(len(l.pos)))
		if len(st.Data) >= postingChunk {
			if err := flushTerms(); err != nil {
				return err
			}
		}
	}
	if len(st.Text) > 0 {
		if err := flushTerms(); err != nil {
			return err
		}
	}
	if err := enc.Encode(ix.snapOrder()); err != nil {
		return err
	}
	posAt := cw.n
	if err := ix.writePositions(cw); err != nil {
		return err
	}
	if _, err := cw.Write(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(termsAt)), uint64(posAt))); err != nil {
		return err
	}
	if _, err := bw.Write(binary.BigEndian.AppendUint32(nil, sum.Sum32())); err != nil {
		return err
	}
	return bw.Flush()
}

// checkList reports whether l.data is count postings of notes below docs,
// in increasing order, and nothing else; it sets l.n and l.last.
func checkList(l *plist, count uint32, docs int) bool {
	id := uint32(0)
	for i := 0; i < len(l.data); {
		gap, j, ok := uvarint(l.data, i)
		if !ok || (l.n > 0 && gap == 0) || uint64(id)+uint64(gap) >= uint64(docs) {
			return false
		}
		if _, i, ok = uvarint(l.data, j); !ok {
			return false
		}
		id += gap
		l.n++
	}
	l.last = id
	return l.n == count && count > 0
}

// loaded is a snapshot read back, to be installed whole or not at all.
type loaded struct {
	docs     []*doc
	termText []string
	postings []plist
	byPath   map[string]uint32
	sorted   []uint32 // term ids in the order of their text (dict.go)
	sealed   sealed   // the positions, when they are in a file
	adopted  bool     // that file is the snapshot's own
}

// errForeign marks a snapshot written by another format, version, vault or
// build: not an error, a reason to build afresh.
type errForeign struct{ why string }

func (e errForeign) Error() string { return "not this index's snapshot: " + e.why }

// decode reads a snapshot written by encode with the same tag, whose
// checksum was checked (readSnapshot). Anything wrong (a foreign header,
// a short file, lists that do not add up) is an error and nothing of it is
// used.
//
// With sc, the positions go to a file of sc's (sealed.go) rather than
// into memory.
func decode(r io.ReadSeeker, tag string, size int64, sc Scratch) (*loaded, error) {
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return nil, fmt.Errorf("a snapshot must be read at offsets")
	}
	termsAt, posAt, err := snapSections(ra, size)
	if err != nil {
		return nil, err
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(ra, 0, termsAt), 1<<16))
	var h snapHeader
	if err := dec.Decode(&h); err != nil {
		return nil, err
	}
	if err := h.foreign(tag); err != nil {
		return nil, err
	}
	if h.Docs < 0 || h.Terms < 0 || h.Postings < 0 || h.Docs > 1<<31 {
		return nil, fmt.Errorf("implausible counts %d/%d/%d", h.Docs, h.Terms, h.Postings)
	}
	// Counts size nothing past the data that is there: a damaged header
	// must not make the decoder allocate what it says. The maps are sized
	// by the header as far as the file's bytes can hold (a note takes more
	// than 16 of them, a term more than 4): grown entry by entry instead,
	// the dictionary's rehashing was an eighth of a restart.
	l := &loaded{docs: make([]*doc, 0, min(h.Docs, 1<<16)),
		byPath: make(map[string]uint32, min(int64(h.Docs), size/16)),
	}
	// The terms are decoded on another core meanwhile (snapterms.go).
	var posSizes []int64
	termsDone := make(chan error, 1)
	go func() {
		var err error
		posSizes, err = l.decodeTerms(io.NewSectionReader(ra, termsAt, posAt-termsAt), &h, size)
		termsDone <- err
	}()
	docsErr := l.decodeDocs(dec, &h)
	if err := <-termsDone; err != nil {
		return nil, err
	}
	if docsErr != nil {
		return nil, docsErr
	}
	if err := l.readPositions(r, ra, posAt, size-4-snapTrailer-posAt, posSizes, sc); err != nil {
		return nil, err
	}
	return l, nil
}

// decodeDocs reads the notes, in chunks.
func (l *loaded) decodeDocs(dec *gob.Decoder, h *snapHeader) error {
	for len(l.docs) < h.Docs {
		// A fresh slice each time: gob leaves a field the stream omits
		// (it omits zero values) as it was in the slice decoded into, and
		// the notes keep slices of it.
		var chunk []snapDoc
		if err := dec.Decode(&chunk); err != nil {
			return err
		}
		if len(chunk) == 0 || len(l.docs)+len(chunk) > h.Docs {
			return fmt.Errorf("bad note chunk of %d", len(chunk))
		}
		for i := range chunk {
			if _, dup := l.byPath[chunk[i].Path]; dup {
				return fmt.Errorf("%q twice", chunk[i].Path)
			}
			l.byPath[chunk[i].Path] = uint32(len(l.docs))
			l.docs = append(l.docs, snapToDoc(&chunk[i]))
		}
	}
	return nil
}

func docToSnap(d *doc, termTexts []string) snapDoc {
	m := d.meta
	s := snapDoc{Path: d.path, Mod: d.stamp.Mod.UnixNano(), ReadAt: d.readAt.UnixNano(), Size: d.stamp.Size, ID: d.stamp.ID,
		Lens: d.lens, FrontmatterError: m.FrontmatterError, BodyLine: m.BodyLine, Lines: m.Lines,
		Headings: m.Headings, Blocks: m.Blocks, Tags: m.Tags, Aliases: m.Aliases, Links: m.Links}
	if len(d.anchors) > 0 {
		s.Anchors = make([][]string, len(d.anchors))
		for k, terms := range d.anchors {
			for _, t := range terms {
				s.Anchors[k] = append(s.Anchors[k], termTexts[t])
			}
		}
	}
	if len(m.Properties) > 0 {
		s.Properties = make([]snapProperty, len(m.Properties))
		for i, p := range m.Properties {
			s.Properties[i] = snapProperty{Key: p.Key, Type: p.Type, Value: toSnapValue(p.Value)}
		}
	}
	return s
}

func snapToDoc(s *snapDoc) *doc {
	m := &metadata.Note{FrontmatterError: s.FrontmatterError, BodyLine: s.BodyLine, Lines: s.Lines,
		Headings: s.Headings, Blocks: s.Blocks, Tags: s.Tags, Aliases: s.Aliases, Links: s.Links}
	if len(s.Properties) > 0 {
		m.Properties = make([]metadata.Property, len(s.Properties))
		for i, p := range s.Properties {
			m.Properties[i] = metadata.Property{Key: p.Key, Type: p.Type, Value: fromSnapValue(&p.Value)}
		}
	}
	return &doc{path: s.Path, stamp: Stamp{Mod: time.Unix(0, s.Mod), Size: s.Size, ID: s.ID}, readAt: time.Unix(0, s.ReadAt),
		lens: s.Lens, meta: m, snapAnchors: s.Anchors}
}

func toSnapValue(v any) snapValue {
	switch v := v.(type) {
	case string:
		return snapValue{Kind: vString, S: v}
	case int64:
		return snapValue{Kind: vInt, I: v}
	case float64:
		return snapValue{Kind: vFloat, F: v}
	case bool:
		if v {
			return snapValue{Kind: vTrue}
		}
		return snapValue{Kind: vFalse}
	case []any:
		l := make([]snapValue, len(v))
		for i, x := range v {
			l[i] = toSnapValue(x)
		}
		return snapValue{Kind: vList, L: l}
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		s := snapValue{Kind: vObject, K: keys, L: make([]snapValue, len(keys))}
		for i, k := range keys {
			s.L[i] = toSnapValue(v[k])
		}
		return s
	}
	return snapValue{Kind: vNil}
}

func fromSnapValue(s *snapValue) any {
	switch s.Kind {
	case vString:
		return s.S
	case vInt:
		return s.I
	case vFloat:
		return s.F
	case vTrue:
		return true
	case vFalse:
		return false
	case vList:
		l := make([]any, len(s.L))
		for i := range s.L {
			l[i] = fromSnapValue(&s.L[i])
		}
		return l
	case vObject:
		m := make(map[string]any, len(s.K))
		for i, k := range s.K {
			if i < len(s.L) {
				m[k] = fromSnapValue(&s.L[i])
			}
		}
		return m
	}
	return nil
}
