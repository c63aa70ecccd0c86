package tools

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

var update = flag.Bool("update", false, "rewrite testdata/toolsnaps")

// etag0 is the version of the fake's notes before any edit.
var etag0 = note.ETag([]byte(defaultContent))

// taskNote is the note the fake holds for obsidian_update_task's example.
const taskNote = "- [ ] call\n"

// examples are valid arguments for every tool, with every argument given.
// A tool's test file may add its own (in an init).
var examples = map[string]string{
	"obsidian_create_note":           `{"path":"a.md","content":"x","template":"T","overwrite":true,"open":true,"if_match":"` + etag0 + `"}`,
	"obsidian_read_note":             `{"path":"a.md"}`,
	"obsidian_append_to_note":        `{"path":"a.md","content":"x","inline":true,"if_match":"` + etag0 + `"}`,
	"obsidian_prepend_to_note":       `{"path":"a.md","content":"x","inline":true,"if_match":"` + etag0 + `"}`,
	"obsidian_delete_note":           `{"path":"a.md","permanent":true,"confirm_path":"a.md","if_match":"` + etag0 + `"}`,
	"obsidian_move_note":             `{"path":"a.md","to":"B","if_match":"` + etag0 + `"}`,
	"obsidian_rename_note":           `{"path":"a.md","new_name":"b","if_match":"` + etag0 + `"}`,
	"obsidian_open_note":             `{"path":"a.md","new_tab":true}`,
	"obsidian_file_info":             `{"path":"a.md"}`,
	"obsidian_search_notes":          `{"query":"garden -frost tag:plan","mode":"text","folder":"Projects","limit":5,"cursor":""}`,
	"obsidian_list_files":            `{"folder":"Projects","recursive":true,"glob":"*.md","ext":"md","sort":"modified","limit":5}`,
	"obsidian_read_notes":            `{"paths":["a.md"],"names":["b"]}`,
	"obsidian_get_outline":           `{"path":"a.md"}`,
	"obsidian_get_properties":        `{"path":"a.md"}`,
	"obsidian_get_links":             `{"path":"a.md"}`,
	"obsidian_get_backlinks":         `{"path":"a.md","limit":5}`,
	"obsidian_list_unresolved_links": `{"limit":5}`,
	"obsidian_list_orphans":          `{"limit":5}`,
	"obsidian_list_tags":             `{"sort":"count","limit":5}`,
	"obsidian_list_tagged_notes":     `{"tag":"#project","limit":5}`,
	"obsidian_list_properties":       `{"limit":5}`,
	"obsidian_replace_in_note":       `{"path":"a.md","find":"body","replace":"text","regex":true,"all":true,"dry_run":true,"if_match":"` + etag0 + `"}`,
	"obsidian_set_property":          `{"path":"a.md","key":"status","value":"done","type":"text","if_match":"` + etag0 + `"}`,
	"obsidian_remove_property":       `{"path":"a.md","key":"status","if_match":"` + etag0 + `"}`,
	"obsidian_update_tags":           `{"path":"a.md","add":["x"],"remove":["y"],"if_match":"` + etag0 + `"}`,
	"obsidian_rename_tag":            `{"from":"#proj","to":"project","dry_run":true}`,
	"obsidian_rename_heading":        `{"path":"a.md","heading":"Note","to":"Renamed","dry_run":true,"if_match":"` + etag0 + `"}`,
	"obsidian_daily_note":            `{"operation":"append","period":"week","date":"2026-11-23","content":"- [ ] call","inline":true}`,
	"obsidian_list_templates":        `{}`,
	"obsidian_update_task":           `{"path":"A.md","if_match":"` + note.ETag([]byte(taskNote)) + `","operation":"toggle","line":1,"block":""}`,
	"obsidian_list_tasks":            `{"status":"any","due_before":"2026-12-31","due_after":"2026-01-01","tag":"work","folder":"Projects","text":"call","limit":10,"cursor":""}`,
	"obsidian_list_commands":         `{"filter":"editor:","limit":5,"cursor":""}`,
	"obsidian_run_command":           `{"id":"editor:save-file"}`,
	"obsidian_query_base":            `{"path":"Books.base","view":"Shelf","limit":5,"cursor":""}`,
	"obsidian_query_dataview":        `{"query":"TABLE rating FROM #book SORT rating DESC","origin":"Home.md"}`,
	"obsidian_read_attachment":       `{"path":"a.png"}`,
	"obsidian_read_canvas":           `{"path":"B.canvas"}`,
	"obsidian_edit_canvas":           `{"path":"B.canvas","create":true,"add":[{"type":"text","text":"x"}],"update":[],"remove":[],"if_match":"` + note.ETag([]byte("")) + `"}`,
	"obsidian_patch_note":            `{"path":"a.md","operation":"append","heading":"Note","content":"x","create_if_missing":true,"if_match":"` + etag0 + `"}`,
}

// conditional are arguments required only with others: the schema cannot
// say so, the validation does.
var conditional = map[string]bool{
	"obsidian_delete_note.confirm_path": true, // a permanent delete, when the client cannot ask the user
	"obsidian_daily_note.content":       true, // append and prepend
	"obsidian_update_task.line":         true, // or block
}

type schema struct {
	Type                 string                    `json:"type"`
	Properties           map[string]map[string]any `json:"properties"`
	Required             []string                  `json:"required"`
	AdditionalProperties *bool                     `json:"additionalProperties"`
	OneOf, AnyOf, AllOf  []any
}

func inputSchema(t *testing.T, raw json.RawMessage) schema {
	t.Helper()
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRegistryInvariants(t *testing.T) {
	t.Parallel()
	snake := regexp.MustCompile(`^obsidian_[a-z]+(_[a-z]+)*$`)
	seen := map[string]bool{}
	for _, st := range All(on(&fakeBackend{})) {
		tool := st.Tool
		t.Run(tool.Name, func(t *testing.T) {
			// A fake of its own: edits change what the fake's notes hold.
			st := findTool(t, tool.Name, &fakeBackend{content: map[string]string{"obsidian_update_task": taskNote, "obsidian_read_canvas": `{"nodes":[]}`}[tool.Name]})
			if seen[tool.Name] || !snake.MatchString(tool.Name) {
				t.Errorf("name %q is duplicated or not obsidian_snake_case", tool.Name)
			}
			seen[tool.Name] = true
			if len(tool.Description) < 40 || tool.Title == "" {
				t.Errorf("description or title missing or too thin: %q", tool.Description)
			}
			// Hints left out take MCP's defaults: a tool that writes must
			// say whether it destroys, since the default is that it does.
			a := tool.Annotations
			if a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Errorf("openWorldHint must be false: %+v", a)
			}
			readOnly := a.ReadOnlyHint != nil && *a.ReadOnlyHint
			if readOnly == (a.DestructiveHint != nil) || readOnly && a.IdempotentHint != nil {
				t.Errorf("a read-only tool says only so; a writing one says whether it destroys: %+v", a)
			}
			s := inputSchema(t, tool.RawInputSchema)
			if s.Type != "object" || s.OneOf != nil || s.AnyOf != nil || s.AllOf != nil {
				t.Errorf("input schema must be an object without top-level combinators: %s", tool.RawInputSchema)
			}
			// Every client can read both schemas (docs/schemas.md).
			for _, p := range SubsetProblems(tool.RawInputSchema, false) {
				t.Errorf("input schema: %s", p)
			}
			for _, p := range SubsetProblems(tool.RawOutputSchema, true) {
				t.Errorf("output schema: %s", p)
			}
			if out := inputSchema(t, tool.RawOutputSchema); out.Type != "object" {
				t.Errorf("no output schema")
			}
			for name, prop := range s.Properties {
				// Paging is described once, in the server instructions.
				if d, _ := prop["description"].(string); d == "" && name != "limit" && name != "cursor" {
					t.Errorf("argument %s has no description", name)
				}
			}
			example, ok := examples[tool.Name]
			if !ok {
				t.Fatalf("no example arguments for %s", tool.Name)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(example), &args); err != nil {
				t.Fatal(err)
			}
			res, err := call(t, st, example)
			if err != nil {
				t.Fatalf("example arguments rejected: %v", err)
			}
			checkOutput(t, st, res)
			// The schema's required list and the validation agree: leaving out
			// a required argument fails naming it; leaving out any other does not.
			for name := range s.Properties {
				if _, given := args[name]; !given {
					continue
				}
				without := map[string]any{}
				for k, v := range args {
					if k != name {
						without[k] = v
					}
				}
				raw, _ := json.Marshal(without)
				_, err := call(t, st, string(raw))
				// path/name, heading/block/property: one of each group
				required := slices.Contains(s.Required, name) || name == "path" || name == "heading" || conditional[tool.Name+"."+name]
				var named bool
				if e := errors.From(err); e != nil && e.Kind == errors.InvalidParams {
					for _, f := range e.Fields {
						named = named || f.Field == name
					}
				}
				if required != named {
					t.Errorf("leaving out %q: schema required=%v, but validation named it=%v (%v)", name, required, named, err)
				}
			}
		})
	}
	if len(seen) != len(examples) {
		t.Errorf("%d tools, %d examples", len(seen), len(examples))
	}
}

// TestToolSnapshots pins every tool's public definition. Run
// `go test ./tools -update` after an intended change and review the diff.
func TestToolSnapshots(t *testing.T) {
	t.Parallel()
	for _, st := range All(on(&fakeBackend{})) {
		got, err := json.MarshalIndent(st.Tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("testdata", "toolsnaps", st.Tool.Name+".json")
		if *update {
			if err := os.WriteFile(file, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("missing snapshot %s (run go test ./tools -update): %v", file, err)
		}
		if !jsonEqual(t, string(got), string(want)) {
			t.Errorf("%s differs from its snapshot; if intended, run `go test ./tools -update` and review:\n%s", st.Tool.Name, got)
		}
	}
	entries, _ := os.ReadDir(filepath.Join("testdata", "toolsnaps"))
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".json")
		if _, ok := examples[name]; !ok {
			t.Errorf("stale snapshot %s for a tool that no longer exists", e.Name())
		}
	}
}

// TestNamedIsTheToolAllBuilds: Named builds the same tool as All, alone.
func TestNamedIsTheToolAllBuilds(t *testing.T) {
	t.Parallel()
	for _, st := range All(Vault{}) {
		got, ok := Named(Vault{}, st.Tool.Name)
		if !ok || got.Tool.Name != st.Tool.Name || !reflect.DeepEqual(got.Tool.InputSchema, st.Tool.InputSchema) {
			t.Errorf("Named(%q) = %q, %v; want the tool All builds", st.Tool.Name, got.Tool.Name, ok)
		}
	}
	if _, ok := Named(Vault{}, "obsidian_no_such_tool"); ok {
		t.Error("Named found a tool that does not exist")
	}
}
