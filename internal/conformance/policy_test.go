package conformance

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// The folder policy on every backend, as the server wires it: the
// router's adapters (Router.Vault), which hold each call to the policy
// and then route it to the folder or the app.

const (
	denyRule  = "--deny-paths Private/**"
	writeRule = "--write-paths Inbox/**,Journal/**,Refs/**"
)

// policyVault is baseVault with notes the policy hides: Private/ by
// --deny-paths, Drafts/ by the vault's .mcpignore.
var policyVault = map[string]string{
	"Private/Secret.md": "---\ncodename: falcon\ntags: [secret]\n---\nzanzibar [[Plan]] [[Ghost]] #public\n",
	"Private/Dup.md":    "private dup",
	"Drafts/D.md":       "quetzal [[Welcome]]",
	"Refs/ToSecret.md":  "[[Secret]]",
	"Inbox/A.md":        "a #public\n",
	".mcpignore":        "Drafts/\n",
}

func rules(t *testing.T) *policy.Policy {
	deny, err := policy.ParseList("--deny-paths", "Private/**")
	if err != nil {
		t.Fatal(err)
	}
	write, err := policy.ParseList("--write-paths", "Inbox/**,Journal/**,Refs/**")
	if err != nil {
		t.Fatal(err)
	}
	return &policy.Policy{Deny: deny, Write: write}
}

func cliClient(bin string) *obsidiancli.Client {
	return &obsidiancli.Client{Bin: bin, Timeout: 20 * time.Second, Logger: discard}
}

// guarded is the router's vault, as internal/vaultserver builds it.
func guarded(r *backend.Router) tools.Vault {
	r.Logger = discard
	return r.Vault()
}

var policySubjects = []subject{
	{name: "native", new: func(t *testing.T, dir string) tools.Vault {
		v, err := native.Open(dir, native.WithPolicy(rules(t)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		return guarded(&backend.Router{Mode: backend.Native, Folder: v, Rules: rules(t)})
	}},
	// The folder learned from the app: its .mcpignore applies too.
	{name: "cli", new: func(t *testing.T, dir string) tools.Vault {
		f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: dir})
		pol := rules(t)
		return guarded(cliRouter(t, f, pol))
	}},
	// No folder on this machine: the configured rules only, and what the
	// app counts over every note is refused.
	{name: "cli-remote", readSideOnly: true, new: func(t *testing.T, dir string) tools.Vault {
		f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: dir, ReportedPath: filepath.Join(t.TempDir(), "elsewhere")})
		pol := rules(t)
		return guarded(cliRouter(t, f, pol))
	}},
	{name: "auto-app-closed", new: func(t *testing.T, dir string) tools.Vault {
		f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: dir, NotRunning: true})
		pol := rules(t)
		v, err := native.Open(dir, native.WithPolicy(pol))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		r := &backend.Router{Mode: backend.Auto, Folder: v, Rules: pol, Logger: discard}
		r.App = backend.AppOf(&obsidiancli.Backend{CLI: cliClient(f.Bin), Logger: discard, Policy: r.Policy})
		return guarded(r)
	}},
}

// wantRule checks that a refusal names the rule.
func wantRule(rule string) func(*testing.T, string, any, string) {
	return func(t *testing.T, _ string, got any, _ string) {
		if e := got.(*errors.Error); e.Data()["rule"] != rule {
			t.Errorf("rule = %v, want %q (%s)", e.Data()["rule"], rule, e.Message)
		}
	}
}

// nothingHidden checks that no path in the result (its JSON) is hidden.
func nothingHidden(t *testing.T, _ string, got any, _ string) {
	t.Helper()
	var paths []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			paths = append(paths, v.String())
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(got))
	if len(paths) == 0 {
		t.Fatalf("no paths in %+v", got)
	}
	for _, p := range paths {
		if strings.HasPrefix(p, "Private") || strings.HasPrefix(p, "Drafts") || p == "secret" || p == "codename" || p == "Ghost" {
			t.Errorf("%q is hidden, yet in %+v", p, got)
		}
	}
}

// noFolder checks the refusal's rule, and that folder was not made.
func noFolder(rule, folder string) func(t *testing.T, subject string, got any, dir string) {
	return func(t *testing.T, subject string, got any, dir string) {
		wantRule(rule)(t, subject, got, dir)
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(folder))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the folder %s exists (%v), want it not made", subject, folder, err)
		}
	}
}

var unchanged = map[string]string{
	"Private/Secret.md": policyVault["Private/Secret.md"],
	"Projects/Plan.md":  baseVault["Projects/Plan.md"],
	"Inbox/A.md":        policyVault["Inbox/A.md"],
}

var policyScenarios = []scenario{
	// Reading.
	{readSide: true, name: "read a denied note by path", call: read(note.ByPath("Private/Secret.md")),
		kind: errors.PermissionDenied, check: wantRule(denyRule)},
	{readSide: true, name: "read a denied note in other letter case", call: read(note.ByPath("private/SECRET.md")),
		kind: errors.PermissionDenied, check: wantRule(denyRule)},
	{readSide: true, name: "a denied note has no name", call: read(note.ByName("Secret")), kind: errors.FileNotFound},
	{readSide: true, name: "ambiguity leaves denied notes out", call: read(note.ByName("Dup")), kind: errors.AmbiguousName,
		check: func(t *testing.T, _ string, got any, _ string) {
			if e := got.(*errors.Error); !reflect.DeepEqual(e.Candidates, []string{"Notes/Dup.md", "Other/Dup.md"}) {
				t.Errorf("candidates = %q", e.Candidates)
			}
		}},
	{readSide: true, name: "file info of a denied note", call: info(note.ByPath("Private/Secret.md")),
		kind: errors.PermissionDenied, check: wantRule(denyRule)},
	{name: "read a note the vault's ignore file hides", call: read(note.ByPath("Drafts/D.md")),
		kind: errors.PermissionDenied, check: wantRule(".mcpignore line 1: Drafts/")},
	{name: "open a denied note", call: open(note.ByPath("Private/Secret.md")), kind: errors.PermissionDenied},
	{readSide: true, name: "search leaves denied notes out", call: search("zanzibar", ""),
		want: note.SearchResult{Total: 0, Hits: []note.Hit{}}},
	{name: "search leaves ignored notes out", call: search("quetzal", ""),
		want: note.SearchResult{Total: 0, Hits: []note.Hit{}}},
	{readSide: true, name: "listing leaves hidden notes and folders out", call: list(note.ListRequest{Recursive: true, Limit: 100}),
		check: func(t *testing.T, subject string, got any, dir string) {
			l := got.(note.Listing)
			if subject == "cli-remote" {
				// The app's folder is elsewhere: its .mcpignore cannot
				// be read, and only the configured rules hold.
				l.Entries = slices.DeleteFunc(l.Entries, func(e note.Entry) bool { return strings.HasPrefix(e.Path, "Drafts") })
			}
			nothingHidden(t, subject, l.Entries, dir)
			if !slices.ContainsFunc(l.Entries, func(e note.Entry) bool { return e.Path == "Inbox/A.md" }) {
				t.Errorf("a visible note is missing: %+v", l.Entries)
			}
		}},
	{readSide: true, name: "backlinks leave denied notes out", call: backlinks(note.ByPath("Projects/Plan.md")), check: nothingHidden},
	{readSide: true, name: "a link to a denied note leads nowhere", call: outLinks(note.ByPath("Refs/ToSecret.md")),
		want: note.Links{Path: "Refs/ToSecret.md", Links: []note.OutLink{{Target: "Secret", Line: 1}}}},
	{readSide: true, name: "tags leave denied notes out", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Meta.Tags(ctx) },
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported},
		want:  []note.TagCount{{Tag: "inline", Count: 1}, {Tag: "proj", Count: 1}, {Tag: "proj/alpha", Count: 1}, {Tag: "public", Count: 1}}},
	{readSide: true, name: "tagged notes leave denied notes out", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Meta.Tagged(ctx, "public") },
		want: []string{"Inbox/A.md"}},
	{readSide: true, name: "properties leave denied notes out", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Meta.Properties(ctx) },
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported}, check: nothingHidden},
	{readSide: true, name: "orphans leave denied notes out", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Graph.Orphans(ctx) },
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported}, check: nothingHidden},
	{readSide: true, name: "unresolved links leave denied notes out", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Graph.Unresolved(ctx) },
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported}, check: nothingHidden},

	// Writing.
	{name: "create in a denied folder", call: create(note.CreateRequest{Path: "Private/New.md", Content: "x"}),
		kind: errors.PermissionDenied, check: wantRule(denyRule), files: map[string]string{"Private/New.md": gone}},
	// On cli, the first call: the router learns the folder before the
	// write is checked, so that the folder's ignore file holds.
	{name: "create in a folder the ignore file hides", call: create(note.CreateRequest{Path: "Drafts/New.md", Content: "x"}),
		kind: errors.PermissionDenied, check: wantRule(".mcpignore line 1: Drafts/"), files: map[string]string{"Drafts/New.md": gone}},
	{name: "create outside the write paths", call: create(note.CreateRequest{Path: "Projects/New.md", Content: "x"}),
		kind: errors.PermissionDenied, check: wantRule(writeRule), files: map[string]string{"Projects/New.md": gone}},
	{name: "create inside the write paths", call: create(note.CreateRequest{Path: "Inbox/New.md", Content: "x"}),
		want: note.Created{Path: "Inbox/New.md", Size: 1}, files: map[string]string{"Inbox/New.md": "x"}},
	{name: "append by name to a note outside the write paths", call: appendTo(note.ByName("Plan"), "x", false),
		kind: errors.PermissionDenied, check: wantRule(writeRule), files: unchanged},
	{name: "append inside the write paths", call: appendTo(note.ByName("A"), "more", false),
		want: note.Written{Path: "Inbox/A.md", Bytes: 4}, files: map[string]string{"Inbox/A.md": "a #public\n\nmore"}},
	{name: "move out of the write paths", call: move(note.ByPath("Inbox/A.md"), "Projects"),
		kind: errors.PermissionDenied, check: wantRule(writeRule), files: unchanged},
	{name: "move into a denied folder", call: move(note.ByPath("Inbox/A.md"), "Private"),
		kind: errors.PermissionDenied, check: wantRule(denyRule), files: unchanged},
	{name: "rename a denied note", call: rename(note.ByPath("Private/Secret.md"), "Open"),
		kind: errors.PermissionDenied, check: wantRule(denyRule), files: unchanged},
	{name: "delete a denied note", call: del(note.ByPath("Private/Secret.md"), true),
		kind: errors.PermissionDenied, check: wantRule(denyRule), files: unchanged},
	{name: "set a property on a denied note", call: tool("obsidian_set_property", `{"path":"Private/Secret.md","key":"x","value":1}`),
		kind: errors.PermissionDenied, check: wantRule(denyRule), files: unchanged},
	{name: "create a canvas outside the write paths", call: tool("obsidian_edit_canvas", `{"path":"Projects/Map.canvas","create":true}`),
		kind: errors.PermissionDenied, check: wantRule(writeRule), files: map[string]string{"Projects/Map.canvas": gone}},
	{name: "edit a canvas in a denied folder", setup: write("Private/Map.canvas", `{"nodes":[],"edges":[]}`),
		call: tool("obsidian_edit_canvas", `{"path":"Private/Map.canvas","add":[{"type":"text","text":"x"}]}`),
		kind: errors.PermissionDenied, check: wantRule(denyRule), files: map[string]string{"Private/Map.canvas": `{"nodes":[],"edges":[]}`}},
	{name: "daily note in a denied folder", setup: write(".obsidian/daily-notes.json", `{"folder":"Private/Journal"}`),
		call: tool("obsidian_daily_note", `{"operation":"append","content":"x"}`),
		kind: errors.PermissionDenied, check: func(t *testing.T, _ string, got any, dir string) {
			wantRule(denyRule)(t, "", got, dir)
			if entries, _ := os.ReadDir(filepath.Join(dir, "Private", "Journal")); len(entries) > 0 {
				t.Errorf("a daily note was created in the denied folder: %v", entries)
			}
		}},
	{name: "a weekly note outside the write paths, its day's note inside them",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, ".obsidian/daily-notes.json", `{"folder":"Journal"}`)
			writeFile(t, dir, ".obsidian/community-plugins.json", `["periodic-notes"]`)
			writeFile(t, dir, ".obsidian/plugins/periodic-notes/data.json", `{"weekly":{"enabled":true,"folder":"Weeks"}}`)
		},
		call: tool("obsidian_daily_note", `{"operation":"append","period":"week","date":"2026-01-07","content":"x"}`),
		kind: errors.PermissionDenied, files: map[string]string{"Weeks/2026-W02.md": gone, "Journal/2026-01-07.md": gone}},
	{name: "a base's rows leave denied notes out", setup: write("Inbox/All.base", "filters: 'file.hasTag(\"public\") || file.hasTag(\"secret\")'\nviews:\n  - type: table\n    name: T\n"),
		call:  tool("obsidian_query_base", `{"path":"Inbox/All.base"}`),
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported},
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			if !strings.Contains(string(data), `"total":1,"rows":[{"path":"Inbox/A.md"`) {
				t.Errorf("base rows = %s, want Inbox/A.md alone", data)
			}
		}},
	// Folders: judged once, before the call is routed, as the engine
	// reads the argument (trimmed of spaces and a trailing slash).
	{name: "a folder made in a denied folder", call: tool("obsidian_folder", `{"operation":"create","folder":"Private/New"}`),
		kind: errors.PermissionDenied, check: noFolder(denyRule, "Private/New")},
	{name: "a folder made in a denied folder, named with spaces", call: tool("obsidian_folder", `{"operation":"create","folder":"  Private/New/ "}`),
		kind: errors.PermissionDenied, check: noFolder(denyRule, "Private/New")},
	{name: "a folder made outside the write paths", call: tool("obsidian_folder", `{"operation":"create","folder":"Projects/New"}`),
		kind: errors.PermissionDenied, check: noFolder(writeRule, "Projects/New")},
	{name: "a folder moved into a denied folder", call: tool("obsidian_folder", `{"operation":"move","folder":"Inbox","to":" Private/Inbox"}`),
		kind: errors.PermissionDenied, check: noFolder(denyRule, "Private/Inbox"), files: map[string]string{"Inbox/A.md": policyVault["Inbox/A.md"]}},
	{name: "a denied folder deleted", call: tool("obsidian_folder", `{"operation":"delete","folder":"Private "}`),
		kind: errors.PermissionDenied, check: wantRule(denyRule), files: unchanged},
	{name: "no command runs while a folder policy is set", call: tool("obsidian_run_command", `{"id":"app:reload"}`), kind: errors.PermissionDenied},
	{name: "a base in a denied folder", setup: write("Private/All.base", "views:\n  - type: table\n    name: T\n"),
		call: tool("obsidian_query_base", `{"path":"Private/All.base"}`), kind: errors.PermissionDenied, check: wantRule(denyRule)},
	{name: "templates in a denied folder are not listed",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, ".obsidian/templates.json", `{"folder":"Private"}`)
		},
		call: tool("obsidian_list_templates", `{}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			if data, _ := json.Marshal(got); !strings.Contains(string(data), `"templates":[]`) {
				t.Errorf("templates = %s, want none", data)
			}
		}},
	{name: "rename a tag leaves denied notes as they are", call: tool("obsidian_rename_tag", `{"from":"public","to":"shared"}`),
		files: map[string]string{"Inbox/A.md": "a #shared\n", "Private/Secret.md": policyVault["Private/Secret.md"]},
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			var r struct {
				Data struct {
					Notes int      `json:"notes"`
					Paths []string `json:"paths"`
				} `json:"data"`
			}
			if err := json.Unmarshal(data, &r); err != nil || r.Data.Notes != 1 || !slices.Equal(r.Data.Paths, []string{"Inbox/A.md"}) {
				t.Errorf("rename_tag = %s, want Inbox/A.md only", data)
			}
		}},
}

// symlinkIn links rel to target (a path relative to rel's folder) inside
// the vault: a note or a folder that leads elsewhere in the vault.
func symlinkIn(rel, target string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if runtime.GOOS == "windows" {
			t.Skip("symlinks need privileges on Windows")
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
			t.Fatal(err)
		}
	}
}

// Symlinks inside the vault that lead into a hidden folder: the policy
// judges the file reached, not the path as written (a folder link once
// let a note be created inside the denied folder).
var symlinkScenarios = []scenario{
	{name: "read a note linked to a denied one", setup: symlinkIn("Inbox/s.md", "../Private/Secret.md"),
		call: read(note.ByPath("Inbox/s.md")), kind: errors.PermissionDenied, check: wantRule(denyRule + ", which Inbox/s.md reaches through a symlink as Private/Secret.md")},
	{name: "read through a folder linked to a denied one", setup: symlinkIn("Inbox/pd", "../Private"),
		call: read(note.ByPath("Inbox/pd/Secret.md")), kind: errors.PermissionDenied},
	{name: "file info through a folder link", setup: symlinkIn("Inbox/pd", "../Private"),
		call: info(note.ByPath("Inbox/pd/Secret.md")), kind: errors.PermissionDenied},
	{name: "search leaves a linked denied note out", setup: symlinkIn("Inbox/s.md", "../Private/Secret.md"),
		call: search("zanzibar", ""), want: note.SearchResult{Total: 0, Hits: []note.Hit{}}},
	{name: "a linked denied note has no name", setup: symlinkIn("Inbox/s.md", "../Private/Secret.md"),
		// With a folder, names resolve on it in every mode; without one the
		// app resolves them (cli-remote has no such scenario).
		call: read(note.ByName("s")), kind: errors.FileNotFound},
	{name: "tags leave a linked denied note out", setup: symlinkIn("Inbox/s.md", "../Private/Secret.md"),
		call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Meta.Tagged(ctx, "secret") }, want: []string{}},
	{name: "listing leaves a linked denied note out", setup: symlinkIn("Inbox/s.md", "../Private/Secret.md"),
		call: list(note.ListRequest{Folder: "Inbox", Limit: 100}),
		check: func(t *testing.T, _ string, got any, _ string) {
			for _, e := range got.(note.Listing).Entries {
				if e.Path == "Inbox/s.md" {
					t.Errorf("the link to a denied note is listed: %+v", got)
				}
			}
		}},
	{name: "create through a folder linked to a denied one", setup: symlinkIn("Inbox/pd", "../Private"),
		call: create(note.CreateRequest{Path: "Inbox/pd/New.md", Content: "x"}),
		kind: errors.PermissionDenied, files: map[string]string{"Private/New.md": gone}},
	{name: "create through a folder linked out of the write paths", setup: symlinkIn("Inbox/pp", "../Projects"),
		call: create(note.CreateRequest{Path: "Inbox/pp/New.md", Content: "x"}),
		kind: errors.PermissionDenied, files: map[string]string{"Projects/New.md": gone}},
	{name: "append to a note linked to a denied one", setup: symlinkIn("Inbox/s.md", "../Private/Secret.md"),
		call: appendTo(note.ByPath("Inbox/s.md"), "x", false), kind: errors.PermissionDenied, files: unchanged},
	{name: "append to a note linked to a writable one edits that note", setup: symlinkIn("Inbox/j.md", "../Refs/ToSecret.md"),
		call: appendTo(note.ByPath("Inbox/j.md"), "more", false), want: note.Written{Path: "Inbox/j.md", Bytes: 4},
		files: map[string]string{"Refs/ToSecret.md": "[[Secret]]\n\nmore"},
		check: func(t *testing.T, _ string, _ any, dir string) {
			if fi, err := os.Lstat(filepath.Join(dir, "Inbox", "j.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v %v", fi, err)
			}
		}},
	{name: "overwrite a linked note writes the note and says so", setup: symlinkIn("Inbox/j.md", "../Refs/ToSecret.md"),
		call: create(note.CreateRequest{Path: "Inbox/j.md", Content: "new", Overwrite: true}),
		want: note.Created{Path: "Inbox/j.md", Size: 3, Overwrote: true}, files: map[string]string{"Refs/ToSecret.md": "new"}},
}

func TestPolicyConformance(t *testing.T) {
	for _, sub := range policySubjects {
		t.Run(sub.name, func(t *testing.T) {
			t.Parallel()
			for _, sc := range append(slices.Clip(policyScenarios), symlinkScenarios...) {
				if sub.readSideOnly && !sc.readSide {
					continue
				}
				t.Run(sc.name, func(t *testing.T) {
					t.Parallel()
					dir := newVault(t)
					for p, c := range policyVault {
						writeFile(t, dir, p, c)
					}
					runScenario(t, sub, sc, dir)
				})
			}
		})
	}
}
