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
	mu    sync.RWMutex
	g     *grammar
	pages map[string]*Page
	files map[string]bool // every file, Markdown or not
	res   *links.Index
	// gen counts changes; serialised pages and the link maps are kept
	// for one generation.
	gen     uint64
	derived atomic.Pointer[derived]
	maxRows int
	dmu     sync.Mutex // one derive at a time, under the read lock
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
	return &Vault{maxRows: o.MaxRows, g: newGrammar(o.Location, o.Now), pages: map[string]*Page{}, files: map[string]bool{}, res: links.NewIndex(nil)}
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
	if !v.files[path] {
		v.files[path] = true
		v.res.Add(path)
	}
	if p != nil {
		v.pages[path] = p
	} else {
		delete(v.pages, path)
	}
	v.gen++
	v.derived.Store(nil)
}

// PutPage indexes a page read elsewhere (ParsePage), so that the reading
// can happen outside the lock.
func (v *Vault) PutPage(p *Page) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.files[p.Path] {
		v.files[p.Path] = true
		v.res.Add(p.Path)
	}
	v.pages[p.Path] = p
	v.gen++
	v.derived.Store(nil)
}

// PutFile indexes a file that is no page, for links to resolve to.
func (v *Vault) PutFile(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.files[path] {
		v.files[path] = true
		v.res.Add(path)
	}
	delete(v.pages, path)
	v.gen++
	v.derived.Store(nil)
}

// ParsePage reads a note as Dataview would, without indexing it.
func (v *Vault) ParsePage(path, text string, st FileStat) *Page {
	return encodePage(v.g.parsePage(path, text, st), v.g.loc)
}

// Remove forgets a file.
func (v *Vault) Remove(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.files[path] {
		delete(v.files, path)
		v.res.Remove(path)
	}
	delete(v.pages, path)
	v.gen++
	v.derived.Store(nil)
}

// derived is what the pages say of each other, computed once per
// generation: the walk order, resolved links both ways, tags, and each
// page serialised.
type derived struct {
	order    []string            // pages in the vault's walk order
	files    []string            // every file in walk order
	resolved map[string][]string // page → the pages/files its links resolve to, first use first
	inverse  map[string][]string // link path (resolved, or as written) → linking pages
	incoming map[string][]string // file → pages whose resolved links reach it
	tags     map[string][]string // lower-case tag (and parents) → pages
}

// walkLess orders paths as a depth-first walk that lists each folder's
// entries by name.
func walkLess(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < min(len(as), len(bs)); i++ {
		if as[i] != bs[i] {
			return strings.Compare(as[i], bs[i])
		}
	}
	return len(as) - len(bs)
}

// resolve is getFirstLinkpathDest: the file a link path leads to from
// the page at source ("" for none).
func (v *Vault) resolve(linkpath, source string) string {
	lp, _, _ := strings.Cut(linkpath, "#")
	if lp == "" {
		if v.files[source] {
			return source
		}
		return ""
	}
	return v.res.Resolve(lp, source)
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
	d := &derived{resolved: map[string][]string{}, inverse: map[string][]string{}, incoming: map[string][]string{}, tags: map[string][]string{}}
	for f := range v.files {
		d.files = append(d.files, f)
	}
	slices.SortFunc(d.files, walkLess)
	for _, f := range d.files {
		if v.pages[f] != nil {
			d.order = append(d.order, f)
		}
	}
	for _, path := range d.order {
		links, nFM, tags := v.pages[path].head()
		var seenRes, seenInv, seenTag orderedSet
		// resolvedLinks: links, then embeds, then frontmatter links.
		for _, l := range orderedForResolution(links, nFM) {
			if dest := v.resolve(l.Path, path); dest != "" {
				seenRes.add(dest)
			}
		}
		d.resolved[path] = seenRes.list
		for _, dest := range seenRes.list {
			d.incoming[dest] = append(d.incoming[dest], path)
		}
		for _, l := range links {
			key := l.Path
			if dest := v.resolve(l.Path, path); dest != "" {
				key = dest
			}
			seenInv.add(key)
		}
		for _, k := range seenInv.list {
			d.inverse[k] = append(d.inverse[k], path)
		}
		for _, t := range tags {
			for _, s := range subtags(t) {
				seenTag.add(strings.ToLower(s))
			}
		}
		for _, t := range seenTag.list {
			d.tags[t] = append(d.tags[t], path)
		}
	}
	v.derived.Store(d)
	return d
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
	p := s.v.pages[path]
	if p == nil {
		return nil
	}
	o := s.serialize(p.meta(s.v.g.loc, s.names))
	s.objects[path] = o
	return o
}

// canon resolves a link's path as Dataview's index does on import.
func (s *snapshot) canon(l *Link, from string) *Link {
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

// fileKeys are file.*'s keys, in Dataview's order.
var fileKeys = []string{"path", "folder", "name", "link", "outlinks", "inlinks", "etags", "tags", "aliases", "lists",
	"tasks", "ctime", "cday", "mtime", "mday", "size", "starred", "frontmatter", "ext"}

// serialize is PageMetadata.serialize: file.* and the page's fields,
// each made when a query first reads it.
func (s *snapshot) serialize(p *PageMeta) *Object {
	keys := make([]string, 1, len(p.fields)+1)
	keys[0] = "file"
	for _, k := range p.fields {
		if k != "file" {
			keys = append(keys, k)
		}
	}
	return lazyObject(keys, func(k string) any {
		if k == "file" {
			return s.fileObject(p)
		}
		return s.canonValue(p.fieldVals[slices.Index(p.fields, k)], p.Path)
	})
}

// fileObject is file.*.
func (s *snapshot) fileObject(p *PageMeta) *Object {
	keys := fileKeys
	if p.day != nil {
		keys = append(slices.Clone(fileKeys), "day")
	}
	var items map[int]*Object
	listsOf := func(tasksOnly bool) any {
		if items == nil {
			items = s.serializeItems(p)
		}
		out := make([]any, 0, len(p.Lists()))
		for _, it := range p.Lists() {
			if !tasksOnly || it.task != nil {
				out = append(out, items[it.line])
			}
		}
		return out
	}
	return lazyObject(slices.Clone(keys), func(k string) any {
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
			for _, src := range s.d.inverse[p.Path] {
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
			return listsOf(false)
		case "tasks":
			return listsOf(true)
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
	})
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
	o := NewObject()
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
