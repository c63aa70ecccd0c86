package tools

import (
	"context"
	"encoding/json"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

// FuzzArguments: whatever arguments a client sends to whichever tool, the
// call either reaches the backend with a locator and paths that pass the
// note package's checks, or fails with INVALID_PARAMS naming fields that
// exist (or "arguments"); it never panics and never reaches the backend
// with something the checks refuse.
func FuzzArguments(f *testing.F) {
	seeds := []string{
		`{"path":"A.md"}`, `{"name":"Plan"}`, `{"path":"A.md","name":"A"}`, `{}`, `null`, `[]`, `"x"`,
		`{"path":"../x.md"}`, `{"path":"/etc/passwd"}`, `{"path":"C:\\x.md"}`, `{"path":"a\u0000b.md"}`,
		`{"name":"x","folder":"../up","content":"c"}`, `{"path":"A.md","to":"B/"}`, `{"path":"A.md","new_name":"a/b"}`,
		`{"path":"A.md","content":"x","inline":"yes"}`, `{"path":7}`, `{"path":"A.md","bogus":1}`, `{"path":".obsidian/app.json"}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	// One tool set for every input (building it takes milliseconds);
	// inputs run one at a time, so the guard is reset for each.
	b := &guard{}
	tools := All(on(b))
	// Every tool with no arguments at all, so that a tool added later is
	// tried by go test and not only when the fuzzer happens on it.
	for i := range tools {
		f.Add(uint8(i), `{}`)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		if !json.Valid([]byte(args)) {
			t.Skip() // mcp-go hands tools only arguments from a well-formed message
		}
		b.t, b.content, b.calls = t, "", nil
		st := tools[int(which)%len(tools)]
		_, err := call(t, st, args)
		// Every method of the fake records its call, so a capability the
		// guard does not check itself counts as reached too.
		reached := len(b.calls) > 0
		if err == nil {
			if !reached {
				t.Fatalf("%s %s: success without reaching the backend", st.Tool.Name, args)
			}
			return
		}
		var e *errors.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s %s: untyped error %v", st.Tool.Name, args, err)
		}
		if e.Kind != errors.InvalidParams {
			// The fake backend never fails; a tool may still refuse what
			// it answered (a section the note does not have).
			if reached && (e.Kind == errors.FileNotFound || e.Kind == errors.AmbiguousName) {
				return
			}
			t.Fatalf("%s %s: %s, want INVALID_PARAMS (the fake backend never fails)", st.Tool.Name, args, e.Kind)
		}
		allowed := argumentNames(t, st.Tool.InputSchema.Properties, st.Tool.RawInputSchema)
		var sent map[string]json.RawMessage
		_ = json.Unmarshal([]byte(args), &sent)
		for k := range sent {
			allowed = append(allowed, k) // an unknown argument is named as sent
		}
		if len(e.Fields) == 0 {
			t.Fatalf("%s %s: INVALID_PARAMS naming no field", st.Tool.Name, args)
		}
		for _, fe := range e.Fields {
			if fe.Field != "arguments" && !slices.Contains(allowed, fe.Field) {
				t.Fatalf("%s %s: field %q is neither an argument nor sent (%v)", st.Tool.Name, args, fe.Field, allowed)
			}
			if fe.Message == "" {
				t.Fatalf("%s %s: field %q without a fix", st.Tool.Name, args, fe.Field)
			}
		}
	})
}

// argumentNames lists a tool's argument names from its input schema.
func argumentNames(t *testing.T, props map[string]any, raw json.RawMessage) []string {
	var names []string
	for k := range props {
		names = append(names, k)
	}
	if len(raw) > 0 {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		for k := range schema.Properties {
			names = append(names, k)
		}
	}
	return names // none for obsidian_list_templates
}

// guard is a backend that checks what reaches it; whether a call reached
// it at all is what the fake recorded (every method of the fake records).
type guard struct {
	fakeBackend
	t *testing.T
}

func (g *guard) loc(l note.Locator) {
	switch {
	case (l.Path == "") == (l.Name == ""):
		g.t.Fatalf("locator with both or neither of path and name: %+v", l)
	case l.Path != "" && note.CheckPath(l.Path) != "":
		g.t.Fatalf("unsafe path reached the backend: %q (%s)", l.Path, note.CheckPath(l.Path))
	case l.Name != "" && note.CheckName(l.Name) != "":
		g.t.Fatalf("bad name reached the backend: %q (%s)", l.Name, note.CheckName(l.Name))
	}
}

func (g *guard) Create(ctx context.Context, r note.CreateRequest) (note.Created, error) {
	if msg := note.CheckPath(r.Target()); msg != "" {
		g.t.Fatalf("unsafe create target reached the backend: %q (%s)", r.Target(), msg)
	}
	return g.fakeBackend.Create(ctx, r)
}
func (g *guard) Read(ctx context.Context, l note.Locator) (note.Content, error) {
	g.loc(l)
	return g.fakeBackend.Read(ctx, l)
}
func (g *guard) Append(ctx context.Context, l note.Locator, c string, inline bool) (note.Written, error) {
	g.loc(l)
	return g.fakeBackend.Append(ctx, l, c, inline)
}
func (g *guard) Prepend(ctx context.Context, l note.Locator, c string, inline bool) (note.Written, error) {
	g.loc(l)
	return g.fakeBackend.Prepend(ctx, l, c, inline)
}
func (g *guard) Delete(ctx context.Context, l note.Locator, permanent bool) (note.Deleted, error) {
	g.loc(l)
	return g.fakeBackend.Delete(ctx, l, permanent)
}
func (g *guard) Move(ctx context.Context, l note.Locator, to string) (note.Moved, error) {
	g.loc(l)
	if msg := note.CheckFolder(to); msg != "" {
		g.t.Fatalf("unsafe destination reached the backend: %q (%s)", to, msg)
	}
	return g.fakeBackend.Move(ctx, l, to)
}
func (g *guard) Rename(ctx context.Context, l note.Locator, n string) (note.Moved, error) {
	g.loc(l)
	if msg := note.CheckNewName(n); msg != "" {
		g.t.Fatalf("bad new name reached the backend: %q (%s)", n, msg)
	}
	return g.fakeBackend.Rename(ctx, l, n)
}
func (g *guard) Open(ctx context.Context, l note.Locator, newTab bool) (note.Opened, error) {
	g.loc(l)
	return g.fakeBackend.Open(ctx, l, newTab)
}
func (g *guard) FileInfo(ctx context.Context, l note.Locator) (note.Info, error) {
	g.loc(l)
	return g.fakeBackend.FileInfo(ctx, l)
}
func (g *guard) Search(ctx context.Context, r note.SearchRequest) (note.SearchResult, error) {
	if r.Folder != "" && note.CheckFolder(r.Folder) != "" || r.Limit < 1 || r.Limit > 100 || r.Offset < 0 || r.Query == "" {
		g.t.Fatalf("bad search request reached the backend: %+v", r)
	}
	return g.fakeBackend.Search(ctx, r)
}
func (g *guard) List(ctx context.Context, r note.ListRequest) (note.Listing, error) {
	if r.Folder != "" && note.CheckFolder(r.Folder) != "" || r.Limit < 1 || r.Limit > 100 || r.Offset < 0 {
		g.t.Fatalf("bad list request reached the backend: %+v", r)
	}
	return g.fakeBackend.List(ctx, r)
}
func (g *guard) Links(ctx context.Context, l note.Locator) (note.Links, error) {
	g.loc(l)
	return g.fakeBackend.Links(ctx, l)
}
func (g *guard) Backlinks(ctx context.Context, l note.Locator) (note.Backlinks, error) {
	g.loc(l)
	return g.fakeBackend.Backlinks(ctx, l)
}
func (g *guard) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	return g.fakeBackend.Unresolved(ctx)
}
func (g *guard) Orphans(ctx context.Context) ([]string, error) {
	return g.fakeBackend.Orphans(ctx)
}
func (g *guard) Tags(ctx context.Context) ([]note.TagCount, error) {
	return g.fakeBackend.Tags(ctx)
}
func (g *guard) Tagged(ctx context.Context, tag string) ([]string, error) {
	if tag == "" {
		g.t.Fatal("an empty tag reached the backend")
	}
	return g.fakeBackend.Tagged(ctx, tag)
}
func (g *guard) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return g.fakeBackend.Properties(ctx)
}
func (g *guard) Edit(ctx context.Context, l note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	g.loc(l)
	return g.fakeBackend.Edit(ctx, l, ifMatch, change)
}
func (g *guard) Daily(ctx context.Context, r note.DailyRequest) (note.Daily, error) {
	if r.Date.IsZero() || (r.Op != note.DailyRead && r.Op != note.DailyAppend && r.Op != note.DailyPrepend) ||
		!slices.Contains([]string{"", note.Day, note.Week, note.Month, note.Quarter, note.Year}, r.Period) {
		g.t.Fatalf("bad daily request reached the backend: %+v", r)
	}
	return g.fakeBackend.Daily(ctx, r)
}
func (g *guard) Templates(ctx context.Context) (note.Templates, error) {
	return g.fakeBackend.Templates(ctx)
}
func (g *guard) Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error) {
	day := func(s string) bool { _, err := time.Parse(time.DateOnly, s); return s == "" || err == nil }
	if q.Folder != "" && note.CheckFolder(q.Folder) != "" || !day(q.DueBefore) || !day(q.DueAfter) ||
		!slices.Contains([]string{"", "todo", "done", "in_progress", "cancelled", "any"}, q.Status) {
		g.t.Fatalf("bad task query reached the backend: %+v", q)
	}
	return g.fakeBackend.Tasks(ctx, q)
}
func (g *guard) QueryBase(ctx context.Context, l note.Locator, view string) (bases.Result, error) {
	g.loc(l)
	if p := l.Path + l.Name; !strings.EqualFold(path.Ext(p), ".base") || strings.ContainsAny(view, "\x00\n\r") {
		g.t.Fatalf("bad base query reached the backend: %+v view %q", l, view)
	}
	return g.fakeBackend.QueryBase(ctx, l, view)
}
func (g *guard) QueryDataview(ctx context.Context, q note.DataviewQuery) (*dataview.Result, error) {
	g.loc(q.Origin)
	if q.Query == "" || len(q.Query) > 20000 {
		g.t.Fatalf("bad dataview query reached the backend: %q", q.Query)
	}
	return g.fakeBackend.QueryDataview(ctx, q)
}
func (g *guard) Commands(ctx context.Context, filter string) ([]note.Command, error) {
	if strings.ContainsAny(filter, "\x00\n\r") {
		g.t.Fatalf("bad command filter reached the backend: %q", filter)
	}
	return g.fakeBackend.Commands(ctx, filter)
}
func (g *guard) RunCommand(ctx context.Context, id string) (note.CommandRun, error) {
	if id == "" || strings.ContainsAny(id, "\x00\n\r") {
		g.t.Fatalf("bad command id reached the backend: %q", id)
	}
	return g.fakeBackend.RunCommand(ctx, id)
}
