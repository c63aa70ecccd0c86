package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

// fakeBackend records each call as one line and answers from its inputs,
// or with err when set.
type fakeBackend struct {
	mu    sync.Mutex
	calls []string
	err   error
	// content, when set, is what Read returns.
	content string
}

func (f *fakeBackend) record(format string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	return f.err
}

// defaultContent is what the fake's notes hold unless content is set.
const defaultContent = "# Note\n\nbody with \\ and \"quotes\"\n"

func loc(l note.Locator) string { return "path=" + l.Path + " name=" + l.Name }

// resolved is where the fake pretends a locator points.
func resolved(l note.Locator) string {
	if l.Path != "" {
		return l.Path
	}
	return "Resolved/" + l.Name + ".md"
}

func (f *fakeBackend) Create(_ context.Context, r note.CreateRequest) (note.Created, error) {
	err := f.record("Create %+v", r)
	return note.Created{Path: r.Target(), Overwrote: r.Overwrite, Size: len(r.Content), Opened: r.Open}, err
}

func (f *fakeBackend) Read(_ context.Context, l note.Locator) (note.Content, error) {
	err := f.record("Read %s", loc(l))
	if f.content != "" {
		return note.Content{Path: resolved(l), Content: f.content}, err
	}
	return note.Content{Path: resolved(l), Content: defaultContent}, err
}

func (f *fakeBackend) Append(_ context.Context, l note.Locator, c string, inline bool) (note.Written, error) {
	err := f.record("Append %s content=%q inline=%v", loc(l), c, inline)
	return note.Written{Path: resolved(l), Bytes: len(c)}, err
}

func (f *fakeBackend) Prepend(_ context.Context, l note.Locator, c string, inline bool) (note.Written, error) {
	err := f.record("Prepend %s content=%q inline=%v", loc(l), c, inline)
	return note.Written{Path: resolved(l), Bytes: len(c)}, err
}

func (f *fakeBackend) Delete(_ context.Context, l note.Locator, permanent bool) (note.Deleted, error) {
	err := f.record("Delete %s permanent=%v", loc(l), permanent)
	return note.Deleted{Path: resolved(l), Permanent: permanent}, err
}

func (f *fakeBackend) Move(_ context.Context, l note.Locator, to string) (note.Moved, error) {
	err := f.record("Move %s to=%s", loc(l), to)
	return note.Moved{From: resolved(l), To: note.MoveTarget(resolved(l), to)}, err
}

func (f *fakeBackend) Rename(_ context.Context, l note.Locator, n string) (note.Moved, error) {
	err := f.record("Rename %s new_name=%s", loc(l), n)
	return note.Moved{From: resolved(l), To: note.RenameTarget(resolved(l), n)}, err
}

func (f *fakeBackend) Open(_ context.Context, l note.Locator, newTab bool) (note.Opened, error) {
	err := f.record("Open %s new_tab=%v", loc(l), newTab)
	return note.Opened{Path: resolved(l), NewTab: newTab}, err
}

func (f *fakeBackend) FileInfo(_ context.Context, l note.Locator) (note.Info, error) {
	err := f.record("FileInfo %s", loc(l))
	t := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	return note.Info{Path: resolved(l), Name: note.Stem(resolved(l)), Extension: "md", Size: 42, Created: t, Modified: t}, err
}

func (f *fakeBackend) Search(_ context.Context, r note.SearchRequest) (note.SearchResult, error) {
	err := f.record("Search %+v", r)
	res := note.SearchResult{Total: 3}
	for i := r.Offset; i < min(3, r.Offset+r.Limit); i++ {
		res.Hits = append(res.Hits, note.Hit{Path: fmt.Sprintf("hit%d.md", i), Score: float64(3 - i), Matched: []string{"body"},
			Snippets: []note.Snippet{{Line: 1, Text: "a <mark>" + r.Query + "</mark>"}}})
	}
	return res, err
}

func (f *fakeBackend) List(_ context.Context, r note.ListRequest) (note.Listing, error) {
	err := f.record("List %+v", r)
	t := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	all := []note.Entry{{Path: "A", Type: "folder", Modified: t}, {Path: "A/b.md", Type: "file", Size: 3, Modified: t}, {Path: "c.md", Type: "file", Size: 4, Modified: t}}
	l := note.Listing{Total: len(all), Entries: []note.Entry{}}
	if r.Offset < len(all) {
		l.Entries = all[r.Offset:min(len(all), r.Offset+r.Limit)]
	}
	return l, err
}

func (f *fakeBackend) Links(_ context.Context, l note.Locator) (note.Links, error) {
	err := f.record("Links %s", loc(l))
	return note.Links{Path: resolved(l), Links: []note.OutLink{{Target: "B", Path: "B.md", Resolved: true, Line: 2}, {Target: "Nowhere", Line: 3}}}, err
}

func (f *fakeBackend) Backlinks(_ context.Context, l note.Locator) (note.Backlinks, error) {
	err := f.record("Backlinks %s", loc(l))
	refs := []note.LinkRef{{Path: "a.md", Line: 1}, {Path: "b.md", Line: 4}, {Path: "c.md", Line: 9}}
	return note.Backlinks{Path: resolved(l), Total: len(refs), Backlinks: refs}, err
}

func (f *fakeBackend) Unresolved(context.Context) ([]note.Unresolved, error) {
	err := f.record("Unresolved")
	return []note.Unresolved{{Target: "Nowhere", Count: 2, Sources: []note.LinkRef{{Path: "a.md", Line: 1}, {Path: "b.md", Line: 2}}}}, err
}

func (f *fakeBackend) Orphans(context.Context) ([]string, error) {
	err := f.record("Orphans")
	return []string{"a.md", "b.md", "c.md"}, err
}

func (f *fakeBackend) Tags(context.Context) ([]note.TagCount, error) {
	err := f.record("Tags")
	return []note.TagCount{{Tag: "b", Count: 1}, {Tag: "A", Count: 3}, {Tag: "a/x", Count: 2}}, err
}

func (f *fakeBackend) Tagged(_ context.Context, tag string) ([]string, error) {
	err := f.record("Tagged %s", tag)
	return []string{"a.md", "b.md"}, err
}

func (f *fakeBackend) Properties(context.Context) ([]note.PropertyStat, error) {
	err := f.record("Properties")
	return []note.PropertyStat{{Name: "status", Count: 2, Types: []string{"text"}}}, err
}

// toolCase is one row of a tool's table.
type toolCase struct {
	name string
	args string // JSON arguments
	// backend error to inject
	err error
	// content is the note the fake reads, when not its default
	content string
	// wantCall is the backend call expected; "" means none.
	wantCall string
	// wantData is the expected structured content, as JSON.
	wantData string
	// wantText is the expected text block when it is not wantData.
	wantText string
	// wantKind and wantFields describe an expected failure.
	wantKind   errors.Kind
	wantFields []string
	wantMsg    string
}

func findTool(t *testing.T, name string, b any) server.ServerTool {
	t.Helper()
	// Only the one tool is built: building all of them (their schemas)
	// for each of some thousand cases was most of this package's time.
	st, ok := Named(on(b), name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return st
}

func findIn(t *testing.T, all []server.ServerTool, name string) server.ServerTool {
	t.Helper()
	for _, st := range all {
		if st.Tool.Name == name {
			return st
		}
	}
	t.Fatalf("no tool %s", name)
	return server.ServerTool{}
}

func call(t *testing.T, st server.ServerTool, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = st.Tool.Name
	req.Params.RawArguments = json.RawMessage(args)
	return st.Handler(t.Context(), req)
}

func runCases(t *testing.T, toolName string, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{err: tc.err, content: tc.content}
			res, err := call(t, findTool(t, toolName, fb), tc.args)
			switch {
			case tc.wantCall == "" && len(fb.calls) > 0:
				t.Errorf("backend called %q, want no call", fb.calls)
			case tc.wantCall != "" && !slices.Equal(fb.calls, []string{tc.wantCall}):
				t.Errorf("backend calls = %q, want [%q]", fb.calls, tc.wantCall)
			}
			if tc.wantKind != "" {
				checkErr(t, err, tc.wantKind, tc.wantFields, tc.wantMsg)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if res.IsError {
				t.Fatalf("isError result: %+v", res)
			}
			checkOutput(t, findTool(t, toolName, fb), res)
			got, _ := json.Marshal(res.StructuredContent)
			if !jsonEqual(t, string(got), tc.wantData) {
				t.Errorf("structured content = %s, want %s", got, tc.wantData)
			}
			text := res.Content[0].(mcp.TextContent).Text
			wantText := tc.wantText
			if wantText == "" {
				if !rendersData(t, text, res.StructuredContent) {
					t.Errorf("text = %s, want the structured content's data as YAML", text)
				}
			} else if text != wantText {
				t.Errorf("text = %q, want %q", text, wantText)
			}
		})
	}
}

// outputSchemas are the tools' output schemas, compiled once.
var outputSchemas sync.Map // tool name → *jsonschema.Schema

// checkOutput validates a result's structured content against the tool's
// output schema with a JSON Schema validator (draft 2020-12), as a client
// that validates results does: a null where the schema says a list fails.
func checkOutput(t *testing.T, st server.ServerTool, res *mcp.CallToolResult) {
	t.Helper()
	if err := outputMisfit(t, st, res.StructuredContent); err != nil {
		t.Error(err)
	}
}

// outputMisfit is why content does not fit st's output schema, or nil.
func outputMisfit(t *testing.T, st server.ServerTool, content any) error {
	t.Helper()
	v, ok := outputSchemas.Load(st.Tool.Name)
	if !ok {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(st.Tool.RawOutputSchema))
		if err != nil {
			t.Fatalf("output schema: %v", err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("output.json", doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("output.json")
		if err != nil {
			t.Fatalf("output schema: %v", err)
		}
		v, _ = outputSchemas.LoadOrStore(st.Tool.Name, sch)
	}
	raw, err := json.Marshal(content)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.(*jsonschema.Schema).Validate(inst); err != nil {
		return fmt.Errorf("the result does not fit %s's output schema: %v\n%.2000s", st.Tool.Name, err, raw)
	}
	return nil
}

func checkErr(t *testing.T, err error, kind errors.Kind, fields []string, msg string) {
	t.Helper()
	var e *errors.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *errors.Error of kind %s", err, err, kind)
	}
	if e.Kind != kind {
		t.Fatalf("kind = %s (%v), want %s", e.Kind, e, kind)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Field)
		if f.Message == "" {
			t.Errorf("field %s has no message", f.Field)
		}
	}
	if !slices.Equal(got, fields) {
		t.Errorf("fields = %v, want %v (%v)", got, fields, e)
	}
	if !strings.Contains(e.Message, msg) {
		t.Errorf("message %q lacks %q", e.Message, msg)
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("bad JSON %s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// locatorCases are the validation rows every locator tool shares; extra is
// the JSON of the tool's other required arguments ("" or `,"k":v`).
func locatorCases(extra string) []toolCase {
	return []toolCase{
		{name: "no locator", args: `{` + strings.TrimPrefix(extra, ",") + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path", "name"}, wantMsg: "exactly one"},
		{name: "both locators", args: `{"path":"a.md","name":"a"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path", "name"}},
		{name: "traversal", args: `{"path":"../secret.md"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: "'..'"},
		{name: "absolute", args: `{"path":"/etc/passwd"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: "leading '/'"},
		{name: "drive letter", args: `{"path":"C:/x.md"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: "drive"},
		{name: "backslash", args: `{"path":"a\\b.md"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: `'\'`},
		{name: "NUL", args: `{"path":"a\u0000.md"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: "NUL"},
		{name: "control char", args: `{"path":"a\u001b.md"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: "control"},
		{name: "blank name", args: `{"name":"  "` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"name"}, wantMsg: "blank"},
		{name: "name escaping", args: `{"name":"../x"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"name"}},
		{name: "wrong type", args: `{"path":42` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: "must be a string, not a number"},
		{name: "unknown argument", args: `{"path":"a.md","file":"a"` + extra + `}`, wantKind: errors.InvalidParams, wantFields: []string{"file"}, wantMsg: "valid arguments"},
		{name: "not an object", args: `["a.md"]`, wantKind: errors.InvalidParams, wantFields: []string{"arguments"}},
		{name: "not found", args: `{"path":"a.md"` + extra + `}`, err: errors.E(errors.FileNotFound, "note not found: a.md"), wantKind: errors.FileNotFound, wantMsg: "a.md"},
	}
}

// withCall fills in the backend call for the rows that reach the backend.
func withCall(cases []toolCase, call string) []toolCase {
	for i := range cases {
		if cases[i].err != nil {
			cases[i].wantCall = call
		}
	}
	return cases
}

// Edit applies change to what Read returns, and keeps the result as the
// note's content, so a test sees what was written and a second edit sees
// the first.
func (f *fakeBackend) Edit(_ context.Context, l note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	if err := f.record("Edit %s if_match=%s", loc(l), ifMatch); err != nil {
		return note.Edited{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cur := f.content
	if cur == "" {
		cur = defaultContent
	}
	next, err := note.IfMatch(resolved(l), ifMatch, change)([]byte(cur))
	if err != nil {
		return note.Edited{}, err
	}
	f.content = string(next)
	return note.Edited{Path: resolved(l), ETag: note.ETag(next), Changed: string(next) != cur}, nil
}

// textOf is a result's first text block.
// textOf is a result's structured content as JSON, HTML unescaped.
func textOf(res *mcp.CallToolResult) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(res.StructuredContent)
	return strings.TrimSuffix(buf.String(), "\n")
}

// rendersData reports whether text, read as YAML, holds the same values
// as the data of the structured content (the envelope's data member).
func rendersData(t *testing.T, text string, structured any) bool {
	t.Helper()
	raw, _ := json.Marshal(structured)
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || !env.Success {
		t.Fatalf("structured content %s is not the envelope", raw)
	}
	var fromText any
	if err := yaml.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("text is not YAML: %v\n%s", err, text)
	}
	asJSON, err := json.Marshal(fromText)
	if err != nil {
		t.Fatalf("text's values: %v", err)
	}
	return jsonEqual(t, string(asJSON), string(env.Data))
}

func (f *fakeBackend) Tasks(_ context.Context, q tasks.Query) ([]tasks.Task, error) {
	err := f.record("Tasks status=%s due=%s..%s tag=%s folder=%s text=%s", q.Status, q.DueAfter, q.DueBefore, q.Tag, q.Folder, q.Text)
	return []tasks.Task{{Path: "Plan.md", Line: 3, Status: "todo", Text: "call", Due: "2026-12-01"}}, err
}

func (f *fakeBackend) Commands(_ context.Context, filter string) ([]note.Command, error) {
	err := f.record("Commands filter=%s", filter)
	return []note.Command{{ID: "editor:save-file", Name: "Save current file"}, {ID: "app:reload"}}, err
}

func (f *fakeBackend) RunCommand(_ context.Context, id string) (note.CommandRun, error) {
	return note.CommandRun{ID: id}, f.record("RunCommand %s", id)
}

func (f *fakeBackend) QueryBase(_ context.Context, l note.Locator, view string) (bases.Result, error) {
	err := f.record("QueryBase %s view=%s", loc(l), view)
	rows := []bases.Row{}
	for i := range 3 {
		rows = append(rows, bases.Row{Path: fmt.Sprintf("row%d.md", i), Values: map[string]any{"file.name": fmt.Sprintf("row%d.md", i)}})
	}
	return bases.Result{Path: resolved(l), View: "Table", Columns: []string{"file.name"}, Total: 3, Rows: rows}, err
}

func (f *fakeBackend) TaskSettings(context.Context) (tasks.Settings, error) {
	return tasks.DefaultSettings(), f.record("TaskSettings")
}

func (f *fakeBackend) Templates(context.Context) (note.Templates, error) {
	err := f.record("Templates")
	return note.Templates{Folder: "Templates", Templates: []note.Template{{Path: "Templates/Meeting.md", Name: "Meeting", Variables: []string{"title", "date:YYYY-MM-DD"}}}}, err
}

func (f *fakeBackend) Daily(_ context.Context, r note.DailyRequest) (note.Daily, error) {
	err := f.record("Daily %s %s content=%q inline=%v", r.Date.Format(time.DateOnly), r.Op, r.Content, r.Inline)
	d := note.Daily{Path: "Daily/" + r.Date.Format(time.DateOnly) + ".md", Date: r.Date.Format(time.DateOnly)}
	if r.Op == note.DailyRead {
		d.Content, d.ETag = defaultContent, etag0
	} else {
		d.Bytes = len(r.Content)
	}
	return d, err
}

// on is the Vault of b's capabilities, confirming through the client as
// the server does.
func on(b any) Vault {
	v := VaultOf(b)
	v.Ask = Elicit{}
	return v
}

// fakeDataview is Dataview's engine over two notes, at a fixed time.
var fakeDataview = func() *dataview.Vault {
	v := dataview.NewVault(dataview.Options{Location: time.UTC, Now: func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }})
	st := dataview.FileStat{Ctime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Mtime: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}
	v.Put("Books/Dune.md", "---\ntags: book\nrating: 5\n---\nauthor:: Frank Herbert\n", st)
	v.Put("Books/Piranesi.md", "---\ntags: book\n---\nrating:: 4.5\n- [ ] lend it [due:: 2026-12-01]\n", st)
	return v
}()

func (f *fakeBackend) QueryDataview(ctx context.Context, q note.DataviewQuery) (*dataview.Result, error) {
	if err := f.record("QueryDataview %q inline=%v origin=%s", q.Query, q.Inline, q.Origin.Path); err != nil {
		return nil, err
	}
	if q.Inline {
		return fakeDataview.Inline(ctx, q.Query, q.Origin.Path, dataview.Limits{})
	}
	return fakeDataview.Query(ctx, q.Query, q.Origin.Path, dataview.Limits{})
}
