package dataview

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/links"
)

// Vault is Dataview's index of one vault: every Markdown page's metadata,
// the files links resolve against, tags and links both ways. Put and
// Remove keep it fresh; queries read it under a read lock.
type Vault struct {
	mu sync.RWMutex
	g  *grammar
	// files holds every file, Markdown or not: a page's value is its
	// page, any other file's nil.
	files  map[string]*Page
	nPages int
	res    *links.Index
	// gen counts changes; serialised pages and the link maps are kept
	// for one generation.
	gen     uint64
	derived atomic.Pointer[derived]
	maxRows int
	dmu     sync.Mutex // one derive at a time, under the read lock
	words   *dict
	// parsed keeps the queries and inline expressions parsed lately: a
	// dashboard asks the same ones again and again, and parsing is most
	// of a small query's time.
	parsed, parsedInline parseCache
}

// parseCache keeps up to maxParsed parsed texts. A text that names a
// date shorthand ("today", "eom", …) is parsed each time: the parse
// reads the clock.
type parseCache struct {
	mu sync.Mutex
	m  map[string]any
}

const maxParsed = 256

func (c *parseCache) parse(p *parser, text string) (any, *ParseError) {
	c.mu.Lock()
	v, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := parseAll(p, text)
	if err != nil || readsClock(text) {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxParsed {
		c.m = map[string]any{} // forget them all: bounded, and simple
	}
	c.m[text] = v
	return v, nil
}

// readsClock says whether text may hold a date shorthand.
func readsClock(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range dateShorthands {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// Options set a vault's clock and zone. A zero Options is the machine's
// local zone and the real time.
type Options struct {
	Location *time.Location
	// Now is the clock "today" and "now" read; tests fix it.
	Now func() time.Time
	// MaxRows bounds the rows a query holds at once; 0 is MaxRows.
	MaxRows int
}

// NewVault makes an empty index.
func NewVault(o Options) *Vault {
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxRows <= 0 {
		o.MaxRows = MaxRows
	}
	return &Vault{maxRows: o.MaxRows, g: newGrammar(o.Location, o.Now), files: map[string]*Page{}, words: newDict(), res: links.NewIndex(nil)}
}

// IsMarkdown says whether Dataview reads a file as a page.
func IsMarkdown(path string) bool { return strings.HasSuffix(path, ".md") }

// Put indexes a file: a Markdown file's text is read into a page; any
// other file only takes part in link resolution.
func (v *Vault) Put(path string, text string, st FileStat) {
	var p *Page
	if IsMarkdown(path) {
		p = v.ParsePage(path, text, st)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.set(path, p)
}

// set makes path a file, with p its page (nil for none); the caller
// holds the lock.
func (v *Vault) set(path string, p *Page) {
	old, ok := v.files[path]
	if !ok {
		v.res.Add(path)
	}
	if old != nil {
		v.nPages--
	}
	if p != nil {
		v.nPages++
	}
	v.files[path] = p
	v.gen++
	v.derived.Store(nil)
}

// Has says whether the vault holds a file at path, and its page.
func (v *Vault) Has(path string) (page *Page, ok bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	page, ok = v.files[path]
	return page, ok
}

// PutPage indexes a page read elsewhere (ParsePage), so that the reading
// can happen outside the lock.
func (v *Vault) PutPage(p *Page) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.set(p.Path, p)
}

// PutFile indexes a file that is no page, for links to resolve to.
func (v *Vault) PutFile(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.set(path, nil)
}

// ParsePage reads a note as Dataview would, without indexing it.
func (v *Vault) ParsePage(path, text string, st FileStat) *Page {
	return v.ParsePageIn(nil, path, text, st)
}

// ParsePageIn is ParsePage keeping the page in slab (nil for none).
func (v *Vault) ParsePageIn(slab *Slab, path, text string, st FileStat) *Page {
	b := encodePage(v.g.parsePage(path, text, st), v.g.loc, v.words)
	if slab == nil {
		return &Page{Path: path, blob: slices.Clone(b), dict: v.words}
	}
	p := slab.keep(path, b)
	p.dict = v.words
	return p
}

// A Slab keeps pages made together (a vault's first reading) side by
// side in large chunks. Made one by one, each page's bytes land among
// the garbage of reading its note, and once that is collected the
// heap's spans stay sparse: at 100,000 notes, tens of megabytes resident
// and unused. A chunk lives while any of its pages does, so what a slab
// can waste is at most the bytes of its own pages, once each, as they
// are made again.
type Slab struct {
	mu    sync.Mutex
	pages []Page
	bytes []byte
}

// NewSlab makes an empty slab.
func NewSlab() *Slab { return &Slab{} }

const (
	slabPages = 1024
	slabBytes = 512 << 10
)

func (s *Slab) keep(path string, b []byte) *Page {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pages) == cap(s.pages) {
		s.pages = make([]Page, 0, slabPages)
	}
	s.pages = append(s.pages, Page{Path: path})
	p := &s.pages[len(s.pages)-1]
	if len(b) > slabBytes/8 { // a large page has its own
		p.blob = slices.Clone(b)
		return p
	}
	if cap(s.bytes)-len(s.bytes) < len(b) {
		s.bytes = make([]byte, 0, slabBytes)
	}
	n := len(s.bytes)
	s.bytes = append(s.bytes, b...)
	p.blob = s.bytes[n:len(s.bytes):len(s.bytes)]
	return p
}

// Remove forgets a file.
func (v *Vault) Remove(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	old, ok := v.files[path]
	if !ok {
		return
	}
	if old != nil {
		v.nPages--
	}
	delete(v.files, path)
	v.res.Remove(path)
	v.gen++
	v.derived.Store(nil)
}

// derived is what the pages say of each other, computed once per
// generation: the walk order, links both ways and tags. Pages and files
// are named by their place in files (int32), and each list is a range of
// one array, so that a 100,000-note vault's links cost a few megabytes
// made in a few allocations.
type derived struct {
	files []string // every file in walk order
	order []string // the pages in walk order
	// inFrom[inStart[f]:inStart[f+1]] are the pages whose links resolve
	// to file f, in walk order.
	inStart, inFrom []int32
	unresolved      keyedLists // link path as written, resolving nowhere → linking pages
	tags            keyedLists // lower-case tag (and parents) → pages
}

// walkLess orders paths as a depth-first walk that lists each folder's
// entries by name: element by element, a folder's entries after it.
func walkLess(a, b string) int {
	for {
		ai, bi := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		ae, be := a, b
		if ai >= 0 {
			ae = a[:ai]
		}
		if bi >= 0 {
			be = b[:bi]
		}
		if c := strings.Compare(ae, be); c != 0 {
			return c
		}
		switch {
		case ai < 0 && bi < 0:
			return 0
		case ai < 0:
			return -1
		case bi < 0:
			return 1
		}
		a, b = a[ai+1:], b[bi+1:]
	}
}

// under is the range of a walk-ordered list that lies in folder f.
func under(list []string, f string) (int, int) {
	// The first path in the folder: every other path sorts before or
	// after all of them.
	i, _ := slices.BinarySearchFunc(list, f, func(x, f string) int {
		if strings.HasPrefix(x, f+"/") {
			return 1
		}
		if c := walkLess(x, f); c != 0 {
			return c
		}
		return -1
	})
	j := i
	for j < len(list) && strings.HasPrefix(list[j], f+"/") {
		j++
	}
	return i, j
}

// fileID is a file's place in files, -1 for none.
func (d *derived) fileID(path string) int32 {
	if i, ok := slices.BinarySearchFunc(d.files, path, walkLess); ok {
		return int32(i)
	}
	return -1
}

// paths names the files ids stand for.
func (d *derived) paths(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = d.files[id]
	}
	return out
}

// linking are the pages whose links reach the file at path, or, where
// no file is there, whose links are written as path.
func (d *derived) linking(path string) []string {
	if f := d.fileID(path); f >= 0 {
		return d.paths(d.inFrom[d.inStart[f]:d.inStart[f+1]])
	}
	return d.paths(d.unresolved.get(path))
}

// resolve is getFirstLinkpathDest: the file a link path leads to from
// the page at source ("" for none).
func (v *Vault) resolve(linkpath, source string) string {
	lp, _, _ := strings.Cut(linkpath, "#")
	if lp == "" {
		if _, ok := v.files[source]; ok {
			return source
		}
		return ""
	}
	return v.res.Resolve(lp, source)
}

// outgoing are the files a page's links resolve to, first use first, as
// Obsidian's resolvedLinks lists them.
func (v *Vault) outgoing(path string) []string {
	p := v.files[path]
	if p == nil {
		return nil
	}
	links, nFM, _ := p.head()
	var seen orderedSet
	for _, l := range orderedForResolution(links, nFM) {
		if dest := v.resolve(l.Path, path); dest != "" {
			seen.add(dest)
		}
	}
	return seen.list
}

// derive computes what the pages say of each other; the caller holds
// the read lock.
func (v *Vault) derive() *derived {
	if d := v.derived.Load(); d != nil {
		return d
	}
	v.dmu.Lock()
	defer v.dmu.Unlock()
	if d := v.derived.Load(); d != nil {
		return d
	}
	d := &derived{files: make([]string, 0, len(v.files)), order: make([]string, 0, v.nPages)}
	for f := range v.files {
		d.files = append(d.files, f)
	}
	slices.SortFunc(d.files, walkLess)
	id := make(map[string]int32, len(d.files))
	for i, f := range d.files {
		id[f] = int32(i)
		if v.files[f] != nil {
			d.order = append(d.order, f)
		}
	}
	// Each page's links and tags as (key, page) pairs, then each key's
	// pages laid out in one array.
	var toFile, fromFile, toLink, fromLink, toTag, fromTag []int32
	var linkKeys, tagKeys []string
	linkKey, tagKey := map[string]int32{}, map[string]int32{}
	intern := func(keys *[]string, m map[string]int32, k string) int32 {
		i, ok := m[k]
		if !ok {
			i = int32(len(*keys))
			m[k] = i
			*keys = append(*keys, k)
		}
		return i
	}
	// What a page has already counted: files its links reach, link
	// paths that reach nothing, tags.
	seenFile, seenRaw, seenTag := map[int32]bool{}, map[string]bool{}, map[string]bool{}
	for _, path := range d.order {
		page := id[path]
		links, _, tags := v.files[path].head()
		clear(seenFile)
		clear(seenRaw)
		clear(seenTag)
		for _, l := range links {
			if dest := v.resolve(l.Path, path); dest != "" {
				if f := id[dest]; !seenFile[f] {
					seenFile[f] = true
					toFile, fromFile = append(toFile, f), append(fromFile, page)
				}
			} else if !seenRaw[l.Path] {
				seenRaw[l.Path] = true
				toLink, fromLink = append(toLink, intern(&linkKeys, linkKey, l.Path)), append(fromLink, page)
			}
		}
		for _, t := range tags {
			for _, s := range subtags(t) {
				if s = strings.ToLower(s); !seenTag[s] {
					seenTag[s] = true
					toTag, fromTag = append(toTag, intern(&tagKeys, tagKey, s)), append(fromTag, page)
				}
			}
		}
	}
	d.inStart, d.inFrom = spread(len(d.files), toFile, fromFile)
	d.unresolved = keyed(linkKeys, toLink, fromLink)
	d.tags = keyed(tagKeys, toTag, fromTag)
	v.derived.Store(d)
	return d
}

// spread lays out pairs (to[i], from[i]), from in ascending order, as
// each of n keys' froms: out[start[k]:start[k+1]], ascending.
func spread(n int, to, from []int32) (start, out []int32) {
	start = make([]int32, n+2)
	for _, k := range to {
		start[k+2]++
	}
	for k := 2; k < len(start); k++ {
		start[k] += start[k-1]
	}
	out = make([]int32, len(from))
	for i, k := range to {
		out[start[k+1]] = from[i]
		start[k+1]++
	}
	return start[:n+1], out
}

// keyedLists are lists of ids by key: a sorted array of keys and
// spread's layout, no map (a vault's unresolved links can be as many as
// its notes).
type keyedLists struct {
	keys       []string
	start, ids []int32
}

// keyed lays out pairs (to[i] a key's index in keys, from[i]) by key.
func keyed(keys []string, to, from []int32) keyedLists {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
	rank := make([]int32, len(keys))
	// The keys' bytes in one allocation: a key read from a page is a
	// small string of its own, and thousands of those kept among a
	// query's garbage leave the heap's spans sparse.
	var all strings.Builder
	for _, k := range order {
		all.WriteString(keys[k])
	}
	text := all.String()
	sorted := make([]string, len(keys))
	at := 0
	for r, k := range order {
		n := len(keys[k])
		rank[k], sorted[r] = int32(r), text[at:at+n]
		at += n
	}
	for i, k := range to {
		to[i] = rank[k]
	}
	start, ids := spread(len(keys), to, from)
	return keyedLists{keys: sorted, start: start, ids: ids}
}

func (k *keyedLists) get(key string) []int32 {
	i, ok := slices.BinarySearch(k.keys, key)
	if !ok {
		return nil
	}
	return k.ids[k.start[i]:k.start[i+1]:k.start[i+1]]
}

// orderedForResolution lists a page's links as Obsidian's resolvedLinks
// counts them: body links, embeds, then frontmatter links.
func orderedForResolution(links []*Link, nFM int) []*Link {
	var body, embeds, fm []*Link
	for i, l := range links {
		switch {
		case i < nFM:
			fm = append(fm, l)
		case l.Embed:
			embeds = append(embeds, l)
		default:
			body = append(body, l)
		}
	}
	return append(append(body, embeds...), fm...)
}

// snapshot is one read of the vault for one query: the pages it has
// decoded are kept for it alone (nothing an evaluation does changes
// them), so that no query leaves them in memory.
type snapshot struct {
	v       *Vault
	d       *derived
	objects map[string]*Object
	names   map[string]string // short texts decoded, shared (see dec)
}

func (v *Vault) read() (*snapshot, func()) {
	v.mu.RLock()
	return &snapshot{v: v, d: v.derive(), objects: map[string]*Object{}, names: map[string]string{}}, v.mu.RUnlock
}

// page is a page decoded and serialised for the query.
func (s *snapshot) page(path string) *Object {
	if o, ok := s.objects[path]; ok {
		return o
	}
	p := s.v.files[path]
	if p == nil {
		return nil
	}
	o := s.pageObjectOf(p)
	s.objects[path] = o
	return o
}

// canon resolves a link's path as Dataview's index does on import.
func (s *snapshot) canon(l *Link, from string) *Link {
	if l.Path == from { // a page's own path is its file's, exactly
		return l
	}
	if dest := s.v.resolve(l.Path, from); dest != "" && dest != l.Path {
		return l.withPath(dest)
	}
	return l
}

func (s *snapshot) canonValue(v any, from string) any {
	switch x := v.(type) {
	case *Link:
		return s.canon(x, from)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.canonValue(e, from)
		}
		return out
	case *Object:
		o := NewObject()
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			o.Set(k, s.canonValue(e, from))
		}
		return o
	}
	return v
}

// canonLinks is links, resolved from the page at from, as a list value.
func (s *snapshot) canonLinks(ls []*Link, from string) []any {
	out := make([]any, len(ls))
	for i, l := range ls {
		out[i] = s.canon(l, from)
	}
	return out
}

// fileKeys are file.*'s keys in Dataview's order, and with "day" for a
// page that has one;
// every file object shares them (a key set on one is appended to a copy:
// len == cap).
var (
	fileKeys = []string{"path", "folder", "name", "link", "outlinks", "inlinks", "etags", "tags", "aliases", "lists",
		"tasks", "ctime", "cday", "mtime", "mday", "size", "starred", "frontmatter", "ext"}
	fileKeysDay = slices.Clip(append(fileKeys[:len(fileKeys):len(fileKeys)], "day"))
)

// pageObject is a page's object, what makes its values and its
// metadata: one allocation for each page a query reads.
type pageObject struct {
	o Object
	s *snapshot
	m PageMeta
}

// pageObjectOf decodes p into its object.
func (s *snapshot) pageObjectOf(p *Page) *Object {
	po := &pageObject{s: s}
	p.metaInto(&po.m, s.v.g.loc, s.names)
	po.o.makeLazy(po.m.objectKeys(), po)
	return &po.o
}

func (po *pageObject) fill(k string) any {
	if k == "file" {
		return po.s.fileObject(&po.m)
	}
	return po.s.canonValue(po.m.fieldValue(slices.Index(po.m.fields, k)), po.m.Path)
}

// fileObject is file.*.
func (s *snapshot) fileObject(p *PageMeta) *Object {
	keys := fileKeys
	if p.day != nil {
		keys = fileKeysDay
	}
	fo := &fileObject{s: s, p: p}
	fo.o.makeLazy(keys, fo)
	return &fo.o
}

// fileObject is a page's file.* object and what makes its values, in
// one allocation.
type fileObject struct {
	o     Object
	s     *snapshot
	p     *PageMeta
	items map[int]*Object // its list items, serialised once for lists and tasks
}

func (fo *fileObject) listsOf(tasksOnly bool) any {
	if fo.items == nil {
		fo.items = fo.s.serializeItems(fo.p)
	}
	lists := fo.p.Lists()
	out := make([]any, 0, len(lists))
	for _, it := range lists {
		if !tasksOnly || it.task != nil {
			out = append(out, fo.items[it.line])
		}
	}
	return out
}

func (fo *fileObject) fill(k string) any {
	s, p := fo.s, fo.p
	switch k {
	case "path":
		return p.Path
	case "folder":
		return parentFolder(p.Path)
	case "name":
		return fileTitle(p.Path)
	case "link":
		return FileLink(p.Path)
	case "outlinks":
		return s.canonLinks(p.Links(), p.Path)
	case "inlinks":
		in := []any{}
		for _, src := range s.d.linking(p.Path) {
			in = append(in, FileLink(src))
		}
		return in
	case "etags":
		return stringsAny(p.Tags())
	case "tags":
		var full orderedSet
		for _, t := range p.Tags() {
			for _, st := range subtags(t) {
				full.add(st)
			}
		}
		return stringsAny(full.list)
	case "aliases":
		return stringsAny(p.aliases)
	case "lists":
		return fo.listsOf(false)
	case "tasks":
		return fo.listsOf(true)
	case "ctime":
		return p.Ctime
	case "cday":
		return stripTime(p.Ctime, s.v.g.loc)
	case "mtime":
		return p.Mtime
	case "mday":
		return stripTime(p.Mtime, s.v.g.loc)
	case "size":
		return float64(p.Size)
	case "starred":
		return false
	case "frontmatter":
		return deepCopy(withoutPosition(p.Frontmatter()))
	case "ext":
		return extension(p.Path)
	case "day":
		return *p.day
	}
	return nil
}

func withoutPosition(o *Object) *Object {
	if !o.Has("position") {
		return o
	}
	c := NewObject()
	for _, k := range o.Keys() {
		if k != "position" {
			v, _ := o.Get(k)
			c.Set(k, v)
		}
	}
	return c
}

func stripTime(t time.Time, loc *time.Location) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
}

// serializeItems is ListItem.serialize through Dataview's cache: each
// item once, its children the same objects.
func (s *snapshot) serializeItems(p *PageMeta) map[int]*Object {
	byLine := map[int]*ListItem{}
	for _, it := range p.Lists() {
		byLine[it.line] = it
	}
	done := map[int]*Object{}
	busy := map[int]bool{}
	var get func(line int) *Object
	get = func(line int) *Object {
		if o, ok := done[line]; ok {
			return o
		}
		if busy[line] {
			return nil // a circular list
		}
		busy[line] = true
		it := byLine[line]
		o := s.serializeItem(p, it, get)
		done[line] = o
		return o
	}
	for _, it := range p.Lists() {
		get(it.line)
	}
	return done
}

func posObject(line, col int) *Object {
	o := NewObject()
	o.Set("line", float64(line))
	o.Set("col", float64(col))
	o.Set("offset", float64(0))
	return o
}

func (s *snapshot) serializeItem(p *PageMeta, it *ListItem, get func(int) *Object) *Object {
	var children []any
	for _, c := range it.children {
		if co := get(c); co != nil {
			children = append(children, co)
		}
	}
	if children == nil {
		children = []any{}
	}
	o := &Object{keys: make([]string, 0, 32), vals: make([]any, 0, 32)}
	o.Set("symbol", it.symbol)
	o.Set("link", s.canon(it.link, p.Path))
	o.Set("section", s.canon(it.section, p.Path))
	o.Set("text", it.text)
	o.Set("tags", stringsAny(it.tags))
	o.Set("line", float64(it.line))
	o.Set("lineCount", float64(it.lineCount))
	o.Set("list", float64(it.list))
	o.Set("outlinks", s.canonLinks(it.links, p.Path))
	o.Set("path", p.Path)
	o.Set("children", children)
	o.Set("task", it.task != nil)
	o.Set("annotated", it.fields.len() > 0)
	pos := NewObject()
	pos.Set("start", posObject(it.pos.startLine, it.pos.startCol))
	pos.Set("end", posObject(it.pos.endLine, it.pos.endCol))
	o.Set("position", pos)
	o.Set("subtasks", children)
	o.Set("real", it.task != nil)
	o.Set("header", s.canon(it.section, p.Path))
	if it.parent >= 0 {
		o.Set("parent", float64(it.parent))
	}
	if it.blockID != "" {
		o.Set("blockId", it.blockID)
	}
	for i, k := range keysOf(it.fields) {
		if o.Has(k) {
			continue
		}
		vs := it.fields.vals[i]
		if len(vs) == 1 {
			o.Set(k, s.canonValue(vs[0], p.Path))
		} else {
			o.Set(k, s.canonValue(slices.Clone(vs), p.Path))
		}
	}
	if t := it.task; t != nil {
		o.Set("status", t.status)
		o.Set("checked", t.checked)
		o.Set("completed", t.completed)
		o.Set("fullyCompleted", t.fullyCompleted)
		first := func(keys ...string) any {
			for _, k := range keys {
				if vs, ok := it.fields.get(k); ok {
					return vs[0]
				}
			}
			return nil
		}
		for _, x := range []struct {
			name string
			keys []string
		}{
			{"created", []string{"created", "ctime", "cday"}},
			{"due", []string{"due", "duetime", "dueday"}},
			{"completion", []string{"completed", "completion", "comptime", "compday"}},
			{"start", []string{"start"}},
			{"scheduled", []string{"scheduled"}},
		} {
			if v := first(x.keys...); truthyJS2(v) {
				o.Set(x.name, s.canonValue(deepCopy(v), p.Path))
			}
		}
	}
	return o
}

func keysOf(m *fieldMap) []string {
	if m == nil {
		return nil
	}
	return m.keys
}

// truthyJS2 is JavaScript's truthiness of any value (objects are true).
func truthyJS2(v any) bool {
	switch x := v.(type) {
	case nil, bool, float64, string:
		return truthyJS(x)
	}
	return true
}
