package dataview

import (
	"encoding/binary"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Page is one note as Dataview reads it, kept compact: its metadata
// encoded in one byte slice (what the vault holds for every note; a
// parsed page of pointers, maps and boxed values costs ten times the
// memory), decoded when a query reads it. The links and tags come first,
// so that what the pages say of each other is read without the rest.
type Page struct {
	Path string
	blob []byte
	dict *dict // the short texts the blob names by number
}

// Size is the bytes the page keeps.
func (p *Page) Size() int { return len(p.blob) }

// Value tags.
const (
	tNull = iota
	tFalse
	tTrue
	tInt
	tFloat
	tString
	tDate
	tDuration
	tLink
	tList
	tObject
	tWord // a short string in the dictionary
)

// A dict numbers the short texts pages repeat (keys, tags, list
// symbols, short values such as a status): a page names each by its
// number, kept once for the vault. It only grows, up to maxWords
// entries; past that, texts are written out.
type dict struct {
	mu   sync.RWMutex
	ids  map[string]uint32
	list atomic.Pointer[[]string]
}

const (
	maxWords   = 1 << 16
	maxWordLen = 24
)

func newDict() *dict {
	d := &dict{ids: map[string]uint32{}}
	d.list.Store(&[]string{})
	return d
}

// id is w's number, made if need be; false when w is not kept.
func (d *dict) id(w string) (uint32, bool) {
	if d == nil || len(w) > maxWordLen {
		return 0, false
	}
	d.mu.RLock()
	id, ok := d.ids[w]
	d.mu.RUnlock()
	if ok {
		return id, true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if id, ok := d.ids[w]; ok {
		return id, true
	}
	if len(d.ids) >= maxWords {
		return 0, false
	}
	w = strings.Clone(w) // not the note's text, kept whole
	id = uint32(len(d.ids))
	d.ids[w] = id
	list := append(*d.list.Load(), w)
	d.list.Store(&list) // published before any page names it
	return id, true
}

func (d *dict) word(id uint32) string { return (*d.list.Load())[id] }

// Zones of a date.
const (
	zLocal = iota
	zUTC
	zFixed
	zNamed
)

type enc struct {
	b    []byte
	dict *dict
	page string // the page's path, which its own links name without repeating it
}

func (e *enc) u(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *enc) i(n int64)  { e.b = binary.AppendVarint(e.b, n) }
func (e *enc) n(n int)    { e.u(uint64(n)) }

func (e *enc) s(s string) {
	e.n(len(s))
	e.b = append(e.b, s...)
}

func (e *enc) strs(ss []string) {
	e.n(len(ss))
	for _, s := range ss {
		e.s(s)
	}
}

// word writes a short text by its number in the dictionary, or as
// itself (0, then the text).
func (e *enc) word(w string) {
	if id, ok := e.dict.id(w); ok {
		e.u(uint64(id) + 1)
		return
	}
	e.n(0)
	e.s(w)
}

func (e *enc) words(ws []string) {
	e.n(len(ws))
	for _, w := range ws {
		e.word(w)
	}
}

// Link flags: how a link is kept. A list item names its page and its
// section by links to the page itself, so the page's own path, and a
// display that repeats the path or its file name, are left out.
const (
	lEmbed       = 1 << iota
	lHeader      // Type "header"
	lBlock       // Type "block"
	lOwnPath     // Path is the page's
	lNoDisplay   // Display ""
	lDisplayPath // Display == Path
	lDisplayName // Display == the file name of Path, without ".md"
	lNoSubpath   // Subpath ""
)

func (e *enc) link(l *Link) {
	flags := byte(0)
	if l.Embed {
		flags = lEmbed
	}
	switch l.Type {
	case "header":
		flags |= lHeader
	case "block":
		flags |= lBlock
	}
	if l.Path == e.page {
		flags |= lOwnPath
	}
	switch l.Display {
	case "":
		flags |= lNoDisplay
	case l.Path:
		flags |= lDisplayPath
	case fileName(l.Path):
		flags |= lDisplayName
	}
	if l.Subpath == "" {
		flags |= lNoSubpath
	}
	e.b = append(e.b, flags)
	if flags&lOwnPath == 0 {
		e.s(l.Path)
	}
	if flags&(lNoDisplay|lDisplayPath|lDisplayName) == 0 {
		e.s(l.Display)
	}
	if flags&lNoSubpath == 0 {
		e.s(l.Subpath)
	}
}

// fileName is a path's last element without ".md".
func fileName(p string) string {
	return strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".md")
}

func (e *enc) links(ls []*Link) {
	e.n(len(ls))
	for _, l := range ls {
		e.link(l)
	}
}

func (e *enc) date(t time.Time, loc *time.Location) {
	e.i(t.UnixMilli())
	switch l := t.Location(); {
	case l == loc:
		e.b = append(e.b, zLocal)
	case l == utcZone:
		e.b = append(e.b, zUTC)
	case strings.HasPrefix(l.String(), "UTC"):
		_, off := t.Zone()
		e.b = append(e.b, zFixed)
		e.i(int64(off))
	default:
		e.b = append(e.b, zNamed)
		e.s(l.String())
	}
}

func (e *enc) value(v any, loc *time.Location) {
	switch x := v.(type) {
	case nil:
		e.b = append(e.b, tNull)
	case bool:
		if x {
			e.b = append(e.b, tTrue)
		} else {
			e.b = append(e.b, tFalse)
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 && !(x == 0 && math.Signbit(x)) {
			e.b = append(e.b, tInt)
			e.i(int64(x))
		} else {
			e.b = append(e.b, tFloat)
			e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
		}
	case string:
		if id, ok := e.dict.id(x); ok {
			e.b = append(e.b, tWord)
			e.u(uint64(id))
			break
		}
		e.b = append(e.b, tString)
		e.s(x)
	case time.Time:
		e.b = append(e.b, tDate)
		e.date(x, loc)
	case Duration:
		e.b = append(e.b, tDuration)
		e.u(uint64(x.has))
		for u := range nUnits {
			if x.set(u) {
				e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x.v[u]))
			}
		}
	case *Link:
		e.b = append(e.b, tLink)
		e.link(x)
	case []any:
		e.b = append(e.b, tList)
		e.n(len(x))
		for _, y := range x {
			e.value(y, loc)
		}
	case *Object:
		e.b = append(e.b, tObject)
		keys := x.Keys()
		e.n(len(keys))
		for _, k := range keys {
			y, _ := x.Get(k)
			e.word(k)
			e.value(y, loc)
		}
	default:
		e.b = append(e.b, tNull)
	}
}

func (e *enc) fields(m *fieldMap, loc *time.Location) {
	e.n(m.len())
	if m == nil {
		return
	}
	for i, k := range m.keys {
		e.word(k)
		e.n(len(m.vals[i]))
		for _, v := range m.vals[i] {
			e.value(v, loc)
		}
	}
}

// Sections of a page's bytes, each decoded only when a query reads it:
// the links and tags, the file's facts and fields, the frontmatter, the
// list items. A header of four offsets says where each starts.
const (
	secHead = iota
	secFields
	secFront
	secLists
	nSections
	headerSize = 4 * nSections
)

// encodePage writes a page's metadata.
func encodePage(p *PageMeta, loc *time.Location, words *dict) []byte {
	e := &enc{b: make([]byte, headerSize, 256), page: p.Path, dict: words}
	mark := func(sec int) { binary.LittleEndian.PutUint32(e.b[4*sec:], uint32(len(e.b))) }
	mark(secHead)
	e.n(p.nFM)
	e.links(p.links)
	e.words(p.tags)
	mark(secFields)
	e.i(p.Ctime.UnixMilli())
	e.i(p.Mtime.UnixMilli())
	e.i(p.Size)
	if p.day != nil {
		e.b = append(e.b, 1)
		e.date(*p.day, loc)
	} else {
		e.b = append(e.b, 0)
	}
	e.strs(p.aliases)
	// Each value after its length: a query reads the fields it names
	// and steps over the rest.
	e.n(len(p.fields))
	val := &enc{dict: e.dict, page: e.page}
	for i, k := range p.fields {
		e.word(k)
		val.b = val.b[:0]
		val.value(p.fieldVals[i], loc)
		e.n(len(val.b))
		e.b = append(e.b, val.b...)
	}
	mark(secFront)
	e.value(p.frontmatter, loc)
	mark(secLists)
	e.n(len(p.lists))
	for _, it := range p.lists {
		e.word(it.symbol)
		e.link(it.link)
		e.link(it.section)
		e.s(it.text)
		e.words(it.tags)
		e.n(it.line)
		e.n(it.lineCount)
		e.i(int64(it.list))
		e.links(it.links)
		e.n(it.pos.startLine)
		e.n(it.pos.startCol)
		e.n(it.pos.endLine)
		e.n(it.pos.endCol)
		e.i(int64(it.parent))
		e.n(len(it.children))
		for _, c := range it.children {
			e.n(c)
		}
		e.s(it.blockID)
		e.fields(it.fields, loc)
		if t := it.task; t != nil {
			flags := byte(1)
			for i, b := range []bool{t.checked, t.completed, t.fullyCompleted} {
				if b {
					flags |= 2 << i
				}
			}
			e.b = append(e.b, flags)
			e.s(t.status)
		} else {
			e.b = append(e.b, 0)
		}
	}
	return e.b
}

type dec struct {
	b   []byte
	i   int
	loc *time.Location
	// names shares the short texts decoded for one query (keys, link
	// targets): one string each, however many pages repeat it.
	names map[string]string
	page  string // the page's path (lOwnPath)
	dict  *dict
}

// name is fileName(p), shared through names like the texts read.
func (d *dec) name(p string) string {
	n := fileName(p)
	if d.names == nil {
		return n
	}
	if s, ok := d.names[n]; ok {
		return s
	}
	d.names[n] = n
	return n
}

func (d *dec) u() uint64 {
	n, w := binary.Uvarint(d.b[d.i:])
	d.i += w
	return n
}

func (d *dec) v() int64 {
	n, w := binary.Varint(d.b[d.i:])
	d.i += w
	return n
}

func (d *dec) n() int { return int(d.u()) }

func (d *dec) byte() byte {
	c := d.b[d.i]
	d.i++
	return c
}

// word reads what enc.word wrote.
func (d *dec) word() string {
	if id := d.u(); id > 0 {
		return d.dict.word(uint32(id - 1))
	}
	return d.s()
}

func (d *dec) words() []string {
	n := d.n()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.word()
	}
	return out
}

func (d *dec) s() string {
	n := d.n()
	b := d.b[d.i : d.i+n]
	d.i += n
	if n == 0 {
		return ""
	}
	if d.names == nil || n > 64 {
		return string(b)
	}
	if s, ok := d.names[string(b)]; ok { // no copy made for the lookup
		return s
	}
	s := string(b)
	d.names[s] = s
	return s
}

func (d *dec) strs() []string {
	n := d.n()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.s()
	}
	return out
}

func (d *dec) link() *Link {
	flags := d.byte()
	l := &Link{Embed: flags&lEmbed != 0, Type: "file", Path: d.page}
	switch {
	case flags&lHeader != 0:
		l.Type = "header"
	case flags&lBlock != 0:
		l.Type = "block"
	}
	if flags&lOwnPath == 0 {
		l.Path = d.s()
	}
	switch {
	case flags&lDisplayPath != 0:
		l.Display = l.Path
	case flags&lDisplayName != 0:
		l.Display = d.name(l.Path)
	case flags&lNoDisplay == 0:
		l.Display = d.s()
	}
	if flags&lNoSubpath == 0 {
		l.Subpath = d.s()
	}
	return l
}

func (d *dec) links() []*Link {
	n := d.n()
	if n == 0 {
		return nil
	}
	out := make([]*Link, n)
	for i := range out {
		out[i] = d.link()
	}
	return out
}

// zones keeps the named zones dates are read in, loaded once.
var zones sync.Map

func namedZone(name string) *time.Location {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	zones.Store(name, l)
	return l
}

func (d *dec) date() time.Time {
	t := time.UnixMilli(d.v())
	switch d.byte() {
	case zUTC:
		return t.In(utcZone)
	case zFixed:
		off := int(d.v())
		return t.In(time.FixedZone(offsetName(off), off))
	case zNamed:
		return t.In(namedZone(d.s()))
	}
	return t.In(d.loc)
}

func (d *dec) float() float64 {
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.i:]))
	d.i += 8
	return f
}

func (d *dec) value() any {
	switch d.byte() {
	case tFalse:
		return false
	case tTrue:
		return true
	case tInt:
		return float64(d.v())
	case tFloat:
		return d.float()
	case tString:
		return d.s()
	case tWord:
		return d.dict.word(uint32(d.u()))
	case tDate:
		return d.date()
	case tDuration:
		var x Duration
		x.has = uint16(d.u())
		for u := range nUnits {
			if x.set(u) {
				x.v[u] = d.float()
			}
		}
		return x
	case tLink:
		return d.link()
	case tList:
		n := d.n()
		out := make([]any, n)
		for i := range out {
			out[i] = d.value()
		}
		return out
	case tObject:
		n := d.n()
		o := &Object{keys: make([]string, n), vals: make([]any, n)}
		for i := range n {
			o.keys[i] = d.word()
			o.vals[i] = d.value()
		}
		o.reindex()
		return o
	}
	return nil
}

func (d *dec) fields() *fieldMap {
	n := d.n()
	if n == 0 {
		return nil
	}
	m := &fieldMap{keys: make([]string, n), vals: make([][]any, n)}
	for i := range n {
		m.keys[i] = d.word()
		vs := make([]any, d.n())
		for j := range vs {
			vs[j] = d.value()
		}
		m.vals[i] = vs
	}
	return m
}

// at reads section sec.
func (p *Page) at(sec int, loc *time.Location, names map[string]string) dec {
	return p.from(int(binary.LittleEndian.Uint32(p.blob[4*sec:])), loc, names)
}

// from reads the blob from offset i.
func (p *Page) from(i int, loc *time.Location, names map[string]string) dec {
	return dec{b: p.blob, i: i, loc: loc, names: names, page: p.Path, dict: p.dict}
}

// head reads what derive needs: the links (nFM of them from the
// frontmatter first) and the tags.
func (p *Page) head() (links []*Link, nFM int, tags []string) {
	d := p.at(secHead, nil, nil)
	nFM = d.n()
	links = d.links()
	tags = d.words()
	return links, nFM, tags
}

// meta decodes the page's facts and fields; its links, tags,
// frontmatter and list items are decoded when first asked for
// (PageMeta's accessors).
func (p *Page) meta(loc *time.Location, names map[string]string) *PageMeta {
	m := &PageMeta{}
	p.metaInto(m, loc, names)
	return m
}

// metaInto is meta into m (a part of a larger allocation).
func (p *Page) metaInto(m *PageMeta, loc *time.Location, names map[string]string) {
	d := p.at(secFields, loc, names)
	*m = PageMeta{Path: p.Path, src: p, loc: loc, names: names}
	m.Ctime = time.UnixMilli(d.v()).In(loc)
	m.Mtime = time.UnixMilli(d.v()).In(loc)
	m.Size = d.v()
	if d.byte() == 1 {
		day := d.date()
		m.day = &day
	}
	m.aliases = d.strs()
	nf := d.n()
	// The keys after a first "file": the page's object's keys, as
	// pageObjectOf makes them, without a copy.
	m.keys = make([]string, nf+1)
	m.keys[0] = "file"
	m.fields, m.valAt = m.keys[1:], make([]int32, nf)
	for i := range nf {
		m.fields[i] = d.word()
		n := d.n()
		m.valAt[i] = int32(d.i)
		d.i += n
	}
}

// valueAt decodes the value at offset at.
func (p *Page) valueAt(at int32, loc *time.Location, names map[string]string) any {
	d := p.from(int(at), loc, names)
	return d.value()
}

// frontOf decodes the frontmatter.
func (p *Page) frontOf(loc *time.Location, names map[string]string) *Object {
	d := p.at(secFront, loc, names)
	o, _ := d.value().(*Object)
	if o == nil {
		o = NewObject()
	}
	return o
}

// listsOf decodes the list items.
func (p *Page) listsOf(loc *time.Location, names map[string]string) []*ListItem {
	d := p.at(secLists, loc, names)
	lists := make([]*ListItem, d.n())
	for i := range lists {
		it := &ListItem{symbol: d.word(), link: d.link(), section: d.link(), text: d.s(), tags: d.words()}
		it.line, it.lineCount, it.list = d.n(), d.n(), int(d.v())
		it.links = d.links()
		it.pos = mdPos{d.n(), d.n(), d.n(), d.n()}
		it.parent = int(d.v())
		if nc := d.n(); nc > 0 {
			it.children = make([]int, nc)
			for j := range it.children {
				it.children[j] = d.n()
			}
		}
		it.blockID = d.s()
		it.fields = d.fields()
		if flags := d.byte(); flags&1 != 0 {
			it.task = &taskInfo{checked: flags&2 != 0, completed: flags&4 != 0, fullyCompleted: flags&8 != 0, status: d.s()}
		}
		lists[i] = it
	}
	return lists
}
