package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

func TestMain(m *testing.M) { obsidiantest.Main(m) }

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// A subject is a backend under test, built on a vault folder.
type subject struct {
	name string
	new  func(t *testing.T, dir string) tools.Vault
	// readSideOnly subjects run only the scenarios marked readSide.
	readSideOnly bool
}

var subjects = []subject{
	{name: "native", new: func(t *testing.T, dir string) tools.Vault {
		v, err := native.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		// As --backend native wires it: the folder, and what needs the
		// app refused as such.
		return (&backend.Router{Mode: backend.Native, Folder: v, Logger: discard}).Vault()
	}},
	// --backend cli: the app, with the folder it reports (the router reads
	// and edits there, and writes there what the CLI cannot carry).
	{name: "cli", new: func(t *testing.T, dir string) tools.Vault {
		f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: dir})
		return cliRouter(t, f, nil).Vault()
	}},
	// The app on a vault folder this machine cannot open (the CLI reports
	// a path elsewhere, as from WSL): the read side goes through the CLI's
	// own commands.
	{name: "cli-remote", readSideOnly: true, new: func(t *testing.T, dir string) tools.Vault {
		f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: dir, ReportedPath: filepath.Join(t.TempDir(), "elsewhere")})
		return cliRouter(t, f, nil).Vault()
	}},
	{name: "auto-app-closed", new: func(t *testing.T, dir string) tools.Vault {
		f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: dir, NotRunning: true})
		v, err := native.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		return (&backend.Router{
			Mode:   backend.Auto,
			App:    backend.AppOf(&obsidiancli.Backend{CLI: &obsidiancli.Client{Bin: f.Bin, Timeout: 20 * time.Second, Logger: discard}, Logger: discard}),
			Folder: v,
			Logger: discard,
		}).Vault()
	}},
}

// cliRouter is --backend cli as the server wires it: the router in CLI
// mode over the CLI backend, holding it to the router's policy.
func cliRouter(t *testing.T, f *obsidiantest.Fake, rules *policy.Policy) *backend.Router {
	r := &backend.Router{Mode: backend.CLI, Rules: rules, Logger: discard}
	r.App = backend.AppOf(&obsidiancli.Backend{CLI: &obsidiancli.Client{Bin: f.Bin, Timeout: 20 * time.Second, Logger: discard}, Logger: discard, Policy: r.Policy})
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// baseVault is every scenario's starting point.
var baseVault = map[string]string{
	".obsidian/app.json":       `{}`,
	".obsidian/templates.json": `{"folder":"Templates"}`,
	"Templates/Meeting.md":     "## {{title}}\n",
	"Welcome.md":               "---\ntitle: Welcome\n---\n# Welcome\nSee [[Plan]], [[Projects/Plan#Goals|the goals]] and ![[Plan#^b1]].\n",
	"Projects/Plan.md":         "# Plan\n## Goals\nship it ^b1\n",
	"Projects/Index.md":        "- [plan](Plan.md)\n- [plan again](<Plan.md#Goals>)\n- `[[Plan]]` stays\n```\n[[Plan]]\n```\n",
	"Notes/Dup.md":             "notes dup",
	"Other/Dup.md":             "other dup",
	"Daily/2026-11-21.md":      "no final newline",
	"Attachments/pic.png":      "\x89PNG\r\n\x1a\n",
	"Refs/Links.md":            "[[Dup]] [[Notes/Dup]] [[Missing note]]",
	"Refs/Tagged.md":           "---\ntags: [proj/alpha]\nstatus: done\n---\n# Tagged\nBody with #inline and `#code` tags, about gardens. [[Welcome]]\n",
}

type scenario struct {
	name  string
	setup func(t *testing.T, dir string) // extra preparation
	call  func(ctx context.Context, b tools.Vault) (any, error)
	// want is the result; fields a backend may leave unset (links,
	// trash_path, times) are compared only through check.
	want any
	kind errors.Kind
	// kinds overrides kind for named subjects.
	kinds map[string]errors.Kind
	// wants overrides want for named subjects: what a backend cannot tell
	// (the CLI gives backlinks per note, without lines) is left out.
	wants map[string]any
	// readSide marks the scenarios every subject runs, cli-remote too.
	readSide bool
	// remote marks write scenarios cli-remote runs too.
	remote bool
	// files maps paths to their expected content afterwards; gone marks
	// a path that must not exist.
	files map[string]string
	check func(t *testing.T, subject string, got any, dir string)
}

const gone = "\x00gone"

// adversarial is content that must survive every backend byte for byte.
var adversarial = "---\ntags: [a]\n---\nLaTeX \\frac{a}{b}, literal \\n and \\t, C:\\path\\to\r\nCRLF line\r\nnul\x00byte, tab\tand ünïcödé 🎉\n" + strings.Repeat("long line ", 1000)

var scenarios = append([]scenario{
	// read
	{name: "read by path", call: read(note.ByPath("Daily/2026-11-21.md")),
		want: note.Content{Path: "Daily/2026-11-21.md", Content: "no final newline"}},
	{name: "read by name, any case", call: read(note.ByName("welcome")),
		want: note.Content{Path: "Welcome.md", Content: baseVault["Welcome.md"]}},
	{name: "read by folder-suffixed name", call: read(note.ByName("projects/plan.md")),
		want: note.Content{Path: "Projects/Plan.md", Content: baseVault["Projects/Plan.md"]}},
	{name: "read non-note needs extension", call: read(note.ByName("pic")), kind: errors.FileNotFound},
	{name: "read ambiguous name", call: read(note.ByName("Dup")), kind: errors.AmbiguousName,
		check: func(t *testing.T, _ string, got any, _ string) {
			if e := got.(*errors.Error); !reflect.DeepEqual(e.Candidates, []string{"Notes/Dup.md", "Other/Dup.md"}) {
				t.Errorf("candidates = %q", e.Candidates)
			}
		}},
	{name: "read missing", call: read(note.ByPath("Nope.md")), kind: errors.FileNotFound},
	{name: "read a folder", call: read(note.ByPath("Projects")), kind: errors.FileNotFound},
	{name: "read hidden config", call: read(note.ByPath(".obsidian/app.json")), kind: errors.FileNotFound},
	{name: "read traversal", call: read(note.ByPath("../outside.md")), kind: errors.InvalidParams},
	{name: "read absolute", call: read(note.ByPath("/etc/passwd")), kind: errors.InvalidParams},
	{name: "read through a symlink out of the vault", setup: symlinkOut("Escape.md"),
		call: read(note.ByPath("Escape.md")), kind: errors.PermissionDenied},
	{name: "read through a symlinked folder out of the vault", setup: symlinkOut("Out"),
		call: read(note.ByPath("Out/secret.md")), kind: errors.PermissionDenied},

	// create
	{name: "create adversarial content", call: create(note.CreateRequest{Path: "New/Deep/A.md", Content: adversarial}),
		want: note.Created{Path: "New/Deep/A.md", Size: len(adversarial)}, files: map[string]string{"New/Deep/A.md": adversarial}},
	{name: "create short content", call: create(note.CreateRequest{Name: "Idea", Folder: "Ideas/", Content: "one\ntwo"}),
		want: note.Created{Path: "Ideas/Idea.md", Size: 7}, files: map[string]string{"Ideas/Idea.md": "one\ntwo"}},
	{name: "create never clobbers", call: create(note.CreateRequest{Path: "Projects/Plan.md", Content: "x"}),
		kind: errors.FileExists, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"], "Projects/Plan 1.md": gone}},
	{name: "create overwrite keeps the mode", setup: chmod("Projects/Plan.md", 0o600),
		call: create(note.CreateRequest{Path: "Projects/Plan.md", Content: "new\\plan", Overwrite: true}),
		want: note.Created{Path: "Projects/Plan.md", Overwrote: true, Size: 8}, files: map[string]string{"Projects/Plan.md": "new\\plan"},
		check: func(t *testing.T, _ string, _ any, dir string) { wantMode(t, dir, "Projects/Plan.md", 0o600) }},
	{name: "create from template", call: create(note.CreateRequest{Path: "Meetings/Standup.md", Template: "Meeting", Content: "notes"}),
		want: note.Created{Path: "Meetings/Standup.md", Size: 5}, files: map[string]string{"Meetings/Standup.md": "## Standup\nnotes"}},
	{name: "create in .obsidian", call: create(note.CreateRequest{Path: ".obsidian/evil.md", Content: "x"}),
		kind: errors.PermissionDenied, files: map[string]string{".obsidian/evil.md": gone}},
	{name: "create in .trash", call: create(note.CreateRequest{Path: ".trash/x.md"}), kind: errors.PermissionDenied},
	{name: "create hidden file", call: create(note.CreateRequest{Path: "Notes/.secret.md"}), kind: errors.PermissionDenied},
	{name: "create traversal", call: create(note.CreateRequest{Path: "a/../../x.md"}), kind: errors.InvalidParams},
	{name: "create too deep", call: create(note.CreateRequest{Path: strings.Repeat("d/", 33) + "x.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("at most 32 folders deep"), files: map[string]string{"d": gone}},
	{name: "create with a name too long", call: create(note.CreateRequest{Path: "Notes/" + strings.Repeat("é", 130) + ".md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("at most 255 bytes")},
	{name: "create with a path too long", call: create(note.CreateRequest{Path: strings.Repeat(strings.Repeat("p", 200)+"/", 6) + "x.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("at most 1024 bytes"), files: map[string]string{strings.Repeat("p", 200): gone}},
	{name: "rename to a name too long", call: rename(note.ByPath("Projects/Plan.md"), strings.Repeat("n", 256)),
		kind: errors.InvalidParams, check: wantMessage("at most 237 bytes"), files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	// Names Obsidian refuses on some platform are refused by every tool
	// that makes one, naming what is wrong (create once took CON.md,
	// "a?b", a right-to-left override and a zero-width space that rename
	// refused; a name of 238 to 255 bytes was an internal error).
	{name: "create a name Windows reserves", call: create(note.CreateRequest{Path: "Notes/CON.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("reserves for a device (CON)"), files: map[string]string{"Notes/CON.md": gone}},
	{name: "create a reserved name in lower case with two extensions", call: create(note.CreateRequest{Path: "aux.tar.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("(AUX)"), files: map[string]string{"aux.tar.md": gone}},
	{name: "create with a character Windows refuses", call: create(note.CreateRequest{Path: "Notes/a?b.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("must not contain '?'"), files: map[string]string{"Notes/a?b.md": gone}},
	{name: "create in a folder named with '|'", call: create(note.CreateRequest{Path: "a|b/x.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("must not contain '|'"), files: map[string]string{"a|b": gone}},
	{name: "create with a right-to-left override", call: create(note.CreateRequest{Path: "Notes/evil\u202Edm.exe.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("U+202E (a right-to-left override)")},
	{name: "create with a zero-width space", call: create(note.CreateRequest{Path: "Notes/Pl\u200Ban.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("U+200B (a zero-width space)")},
	{name: "create with a name of 240 bytes", call: create(note.CreateRequest{Path: "Notes/" + strings.Repeat("n", 237) + ".md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("at most 237 bytes")},
	{name: "create with a name of 237 bytes", call: create(note.CreateRequest{Path: "Notes/" + strings.Repeat("n", 234) + ".md", Content: "x"}),
		want: note.Created{Path: "Notes/" + strings.Repeat("n", 234) + ".md", Size: 1}},
	{name: "create a folder ending with a dot", call: create(note.CreateRequest{Path: "Notes./x.md", Content: "x"}),
		kind: errors.InvalidParams, check: wantMessage("must not end with '.'")},
	{name: "rename to a name Windows reserves", call: rename(note.ByPath("Projects/Plan.md"), "nul"),
		kind: errors.InvalidParams, check: wantMessage("(NUL)"), files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "rename with a zero-width joiner", call: rename(note.ByPath("Projects/Plan.md"), "Pl\u200Dan"),
		kind: errors.InvalidParams, check: wantMessage("U+200D"), files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "move to a folder Windows reserves", call: move(note.ByPath("Projects/Plan.md"), "LPT1/"),
		kind: errors.InvalidParams, check: wantMessage("(LPT1)"), files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "move to a name with '<'", call: move(note.ByPath("Projects/Plan.md"), "Projects/a<b.md"),
		kind: errors.InvalidParams, check: wantMessage("must not contain '<'"), files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "move too deep", call: move(note.ByPath("Projects/Plan.md"), strings.Repeat("d/", 33)),
		kind: errors.InvalidParams, check: wantMessage("folders deep"), files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "create through a symlinked folder out of the vault", setup: symlinkOut("Out"),
		call: create(note.CreateRequest{Path: "Out/new.md", Content: "x"}), kind: errors.PermissionDenied},

	// append / prepend
	{name: "append starts a block of its own", call: appendTo(note.ByPath("Daily/2026-11-21.md"), "- item", false),
		want: note.Written{Path: "Daily/2026-11-21.md", Bytes: 6}, files: map[string]string{"Daily/2026-11-21.md": "no final newline\n\n- item"}},
	{name: "append inline", call: appendTo(note.ByName("2026-11-21"), "!", true),
		want: note.Written{Path: "Daily/2026-11-21.md", Bytes: 1}, files: map[string]string{"Daily/2026-11-21.md": "no final newline!"}},
	{name: "append adversarial", call: appendTo(note.ByPath("Projects/Plan.md"), adversarial, false),
		want: note.Written{Path: "Projects/Plan.md", Bytes: len(adversarial)}, files: map[string]string{"Projects/Plan.md": string(note.Append([]byte(baseVault["Projects/Plan.md"]), []byte(adversarial), false))}},
	{name: "append to a read-only note", setup: chmod("Daily/2026-11-21.md", 0o444),
		call: appendTo(note.ByPath("Daily/2026-11-21.md"), `x\y`, false), kind: errors.PermissionDenied,
		files: map[string]string{"Daily/2026-11-21.md": "no final newline"}},
	{name: "create in a read-only folder", setup: readOnlyDir("Locked"),
		call: create(note.CreateRequest{Path: "Locked/new.md", Content: "x"}), kind: errors.PermissionDenied},
	{name: "append missing", call: appendTo(note.ByName("Nope"), "x", false), kind: errors.FileNotFound},
	{name: "append ambiguous changes nothing", call: appendTo(note.ByName("dup"), "x", false), kind: errors.AmbiguousName,
		files: map[string]string{"Notes/Dup.md": "notes dup", "Other/Dup.md": "other dup"}},
	{name: "prepend after frontmatter", call: prependTo(note.ByPath("Welcome.md"), "> top", false),
		want:  note.Written{Path: "Welcome.md", Bytes: 5},
		files: map[string]string{"Welcome.md": "---\ntitle: Welcome\n---\n> top\n# Welcome\nSee [[Plan]], [[Projects/Plan#Goals|the goals]] and ![[Plan#^b1]].\n"}},
	{name: "prepend without frontmatter", call: prependTo(note.ByPath("Notes/Dup.md"), "first", false),
		want: note.Written{Path: "Notes/Dup.md", Bytes: 5}, files: map[string]string{"Notes/Dup.md": "first\n\nnotes dup"}},
	{name: "prepend hidden", call: prependTo(note.ByPath(".obsidian/app.json"), "x", false), kind: errors.FileNotFound,
		files: map[string]string{".obsidian/app.json": "{}"}},

	// edits: patch, conditional writes. Every byte outside the edit stays.
	{name: "patch under a nested heading, byte for byte", setup: write("Edit/Odd.md", odd),
		call:  tool("obsidian_patch_note", `{"path":"Edit/Odd.md","heading":"Plan > Risks","operation":"append","content":"- new risk"}`),
		files: map[string]string{"Edit/Odd.md": strings.Replace(odd, "- old risk  \r\n", "- old risk  \r\n- new risk\r\n", 1)}},
	{name: "patch a property keeps every other frontmatter byte", setup: write("Edit/Odd.md", odd),
		call:  tool("obsidian_patch_note", `{"path":"Edit/Odd.md","property":"status","operation":"replace","content":"done"}`),
		files: map[string]string{"Edit/Odd.md": strings.Replace(odd, "status: 'draft'\r\n", "status: done\r\n", 1)}},
	{name: "patch a block", remote: true,
		call:  tool("obsidian_patch_note", `{"path":"Projects/Plan.md","block":"b1","operation":"replace","content":"shipped"}`),
		files: map[string]string{"Projects/Plan.md": "# Plan\n## Goals\nshipped ^b1\n"}},
	{name: "patch creates a missing heading", remote: true,
		call:  tool("obsidian_patch_note", `{"path":"Projects/Plan.md","heading":"Plan > Risks","operation":"append","content":"none","create_if_missing":true}`),
		files: map[string]string{"Projects/Plan.md": "# Plan\n## Goals\nship it ^b1\n## Risks\nnone\n"}},
	{name: "patch a missing heading changes nothing", remote: true,
		call: tool("obsidian_patch_note", `{"path":"Projects/Plan.md","heading":"Risks","operation":"append","content":"x"}`),
		kind: errors.HeadingNotFound, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "rename a heading, every link following", remote: true,
		call: tool("obsidian_rename_heading", `{"path":"Projects/Plan.md","heading":"Goals","to":"Aims & means"}`),
		files: map[string]string{
			"Projects/Plan.md":  "# Plan\n## Aims & means\nship it ^b1\n",
			"Welcome.md":        "---\ntitle: Welcome\n---\n# Welcome\nSee [[Plan]], [[Projects/Plan#Aims & means|the goals]] and ![[Plan#^b1]].\n",
			"Projects/Index.md": "- [plan](Plan.md)\n- [plan again](<Plan.md#Aims & means>)\n- `[[Plan]]` stays\n```\n[[Plan]]\n```\n",
		},
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			if !strings.Contains(string(data), `"links":2,"notes":2,"paths":["Projects/Index.md","Welcome.md"]`) || !strings.Contains(string(data), `"from":"Goals","to":"Aims \u0026 means"`) {
				t.Errorf("answer %s", data)
			}
		}},
	{name: "rename a heading, a dry run changes nothing", remote: true,
		call:  tool("obsidian_rename_heading", `{"path":"Projects/Plan.md","heading":"Plan > Goals","to":"Aims","dry_run":true}`),
		files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"], "Welcome.md": baseVault["Welcome.md"], "Projects/Index.md": baseVault["Projects/Index.md"]},
		check: func(t *testing.T, _ string, got any, _ string) {
			if data, _ := json.Marshal(got); !strings.Contains(string(data), `"links":2,"notes":2`) || !strings.Contains(string(data), `"dry_run":true`) {
				t.Errorf("answer %s", data)
			}
		}},
	{name: "a heading renamed by a replace reports the links it broke", remote: true,
		call:  tool("obsidian_replace_in_note", `{"path":"Projects/Plan.md","find":"## Goals","replace":"## Aims"}`),
		files: map[string]string{"Projects/Plan.md": "# Plan\n## Aims\nship it ^b1\n", "Welcome.md": baseVault["Welcome.md"]},
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			if !strings.Contains(string(data), `"links_broken":[{"path":"Projects/Index.md","line":2,"link":"Plan.md#Goals"},{"path":"Welcome.md","line":5,"link":"Projects/Plan#Goals"}]`) {
				t.Errorf("answer %s", data)
			}
		}},
	{name: "an edit that keeps every heading reports no broken link", remote: true,
		call: tool("obsidian_patch_note", `{"path":"Projects/Plan.md","heading":"Goals","operation":"append","content":"more"}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			if data, _ := json.Marshal(got); strings.Contains(string(data), "links_broken") {
				t.Errorf("answer %s", data)
			}
		}},
	{name: "rename a heading to another heading's text is refused", remote: true,
		call: tool("obsidian_rename_heading", `{"path":"Projects/Plan.md","heading":"Goals","to":"plan"}`),
		kind: errors.InvalidParams, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "rename a heading the note does not have", remote: true,
		call: tool("obsidian_rename_heading", `{"path":"Projects/Plan.md","heading":"Risks","to":"Aims"}`),
		kind: errors.HeadingNotFound, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"], "Welcome.md": baseVault["Welcome.md"]}},
	{name: "rename a heading of a stale version changes nothing", remote: true,
		call: tool("obsidian_rename_heading", `{"path":"Projects/Plan.md","heading":"Goals","to":"Aims","if_match":"`+note.ETag([]byte("older"))+`"}`),
		kind: errors.RevisionConflict, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"], "Welcome.md": baseVault["Welcome.md"]}},
	{name: "patch with the current etag", remote: true,
		call:  tool("obsidian_patch_note", `{"path":"Projects/Plan.md","heading":"Goals","operation":"prepend","content":"first","if_match":"`+note.ETag([]byte(baseVault["Projects/Plan.md"]))+`"}`),
		files: map[string]string{"Projects/Plan.md": "# Plan\n## Goals\nfirst\n\nship it ^b1\n"}},
	{name: "patch with a stale etag changes nothing", remote: true,
		call: tool("obsidian_patch_note", `{"path":"Projects/Plan.md","heading":"Goals","operation":"prepend","content":"x","if_match":"`+note.ETag([]byte("older"))+`"}`),
		kind: errors.RevisionConflict, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]},
		check: func(t *testing.T, _ string, got any, _ string) {
			if d := got.(*errors.Error).Data(); d["etag"] != note.ETag([]byte(baseVault["Projects/Plan.md"])) || d["path"] != "Projects/Plan.md" {
				t.Errorf("conflict data = %v, want the current etag and the path", d)
			}
		}},
	{name: "replace across CRLF lines, byte for byte", setup: write("Edit/Odd.md", odd),
		call:  tool("obsidian_replace_in_note", `{"path":"Edit/Odd.md","find":"## Risks\n- old risk","replace":"## Risks\n- older risk"}`),
		files: map[string]string{"Edit/Odd.md": strings.Replace(odd, "## Risks\r\n- old risk", "## Risks\r\n- older risk", 1)}},
	{name: "replace refuses several matches", setup: write("Edit/Odd.md", odd),
		call:  tool("obsidian_replace_in_note", `{"path":"Edit/Odd.md","find":"## Risks","replace":"## Threats"}`),
		kind:  errors.InvalidParams, // the fenced "## Risks" is text too
		files: map[string]string{"Edit/Odd.md": odd}},
	{name: "replace every match with a regex", setup: write("Edit/Odd.md", odd),
		call:  tool("obsidian_replace_in_note", `{"path":"Edit/Odd.md","find":"(?m)^(#+) R(isks)\r$","replace":"$1 r$2\r","regex":true,"all":true}`),
		files: map[string]string{"Edit/Odd.md": strings.ReplaceAll(odd, "## Risks\r\n", "## risks\r\n")}},
	{name: "replace dry run writes nothing", remote: true,
		call:  tool("obsidian_replace_in_note", `{"path":"Projects/Plan.md","find":"ship it","replace":"shipped","dry_run":true}`),
		files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]},
		check: func(t *testing.T, _ string, got any, _ string) {
			if d := fmt.Sprint(got); !strings.Contains(d, "-ship it ^b1\n+shipped ^b1") {
				t.Errorf("dry run = %s, want the diff", d)
			}
		}},
	{name: "replace once", remote: true,
		call:  tool("obsidian_replace_in_note", `{"path":"Projects/Plan.md","find":"ship it","replace":"shipped"}`),
		files: map[string]string{"Projects/Plan.md": "# Plan\n## Goals\nshipped ^b1\n"}},
	{name: "set a typed property on a CRLF note with a BOM", setup: write("Edit/Odd.md", odd),
		call:  tool("obsidian_set_property", `{"path":"Edit/Odd.md","key":"due","value":"2026-12-01","type":"date"}`),
		files: map[string]string{"Edit/Odd.md": strings.Replace(odd, "tags: [a,  b]\r\n", "tags: [a,  b]\r\ndue: 2026-12-01\r\n", 1)}},
	{name: "set then remove a property gives the note back", setup: write("Edit/Odd.md", odd),
		call: func(ctx context.Context, b tools.Vault) (any, error) {
			if _, err := tool("obsidian_set_property", `{"path":"Edit/Odd.md","key":"rank","value":3}`)(ctx, b); err != nil {
				return nil, err
			}
			return tool("obsidian_remove_property", `{"path":"Edit/Odd.md","key":"rank"}`)(ctx, b)
		},
		files: map[string]string{"Edit/Odd.md": odd}},
	{name: "remove a property", remote: true, setup: write("Edit/Plain.md", "---\na: 1\nb: [x]\n---\nbody\n"),
		call:  tool("obsidian_remove_property", `{"path":"Edit/Plain.md","key":"a"}`),
		files: map[string]string{"Edit/Plain.md": "---\nb: [x]\n---\nbody\n"}},
	{name: "add and remove tags, byte for byte", setup: write("Edit/Odd.md", odd+" #gone"),
		call:  tool("obsidian_update_tags", `{"path":"Edit/Odd.md","add":["new"],"remove":["gone","b"]}`),
		files: map[string]string{"Edit/Odd.md": strings.Replace(odd, "tags: [a,  b]\r\n", "tags: [a, new]\r\n", 1)}},
	{name: "rename a tag in every note, nested and never in code", remote: true,
		setup: write("Refs/More.md", "#proj/beta and `#proj` and #project-x\n"),
		call:  tool("obsidian_rename_tag", `{"from":"proj","to":"work"}`),
		files: map[string]string{
			"Refs/Tagged.md": "---\ntags: [work/alpha]\nstatus: done\n---\n# Tagged\nBody with #inline and `#code` tags, about gardens. [[Welcome]]\n",
			"Refs/More.md":   "#work/beta and `#proj` and #project-x\n",
		},
		check: func(t *testing.T, _ string, got any, _ string) {
			if r := fmt.Sprintf("%+v", got); !strings.Contains(r, "Notes:2 Uses:2 Paths:[Refs/More.md Refs/Tagged.md]") {
				t.Errorf("result %s, want 2 notes and 2 uses", r)
			}
		}},
	{name: "rename a tag, dry run", remote: true,
		call:  tool("obsidian_rename_tag", `{"from":"#PROJ","to":"work","dry_run":true}`),
		files: map[string]string{"Refs/Tagged.md": baseVault["Refs/Tagged.md"]},
		check: func(t *testing.T, _ string, got any, _ string) {
			if r := fmt.Sprintf("%+v", got); !strings.Contains(r, "Notes:1 Uses:1 Paths:[Refs/Tagged.md]") {
				t.Errorf("result %s", r)
			}
		}},
	{name: "daily note of a past day, created from the template", setup: dailySettings,
		call:  tool("obsidian_daily_note", `{"operation":"append","date":"2026-01-05","content":"- done"}`),
		files: map[string]string{"Journal/2026-01-05.md": "# 2026-01-05\n- done"}},
	{name: "daily note of today, through the app when it serves", setup: dailySettings, remote: true,
		call:  tool("obsidian_daily_note", `{"operation":"append","content":"- today"}`),
		files: map[string]string{"Journal/" + time.Now().Format(time.DateOnly) + ".md": "# " + time.Now().Format(time.DateOnly) + "\n- today"}},
	{name: "weekly note from the Periodic Notes settings, the app reaching only days",
		setup: func(t *testing.T, dir string) {
			dailySettings(t, dir)
			writeFile(t, dir, ".obsidian/community-plugins.json", `["periodic-notes"]`)
			writeFile(t, dir, ".obsidian/plugins/periodic-notes/data.json", `{"weekly":{"enabled":true,"folder":"Weeks","template":"Templates/Day"}}`)
		},
		call:  tool("obsidian_daily_note", `{"operation":"append","period":"week","date":"2026-01-07","content":"- reviewed"}`),
		files: map[string]string{"Weeks/2026-W02.md": "# 2026-W02\n- reviewed"}},
	{name: "monthly note without the plugin: its default name in the Daily notes folder", setup: dailySettings,
		call:  tool("obsidian_daily_note", `{"operation":"append","period":"month","date":"2026-01-07","content":"x"}`),
		files: map[string]string{"Journal/2026-01.md": "x"}},
	{name: "tasks across the vault, by due date",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, "Tasks/A.md", "- [ ] later 📅 2026-12-02\n- [x] done ✅ 2026-11-01\n")
			writeFile(t, dir, "Tasks/B.md", "```\n- [ ] in code\n```\n- [ ] sooner [due:: 2026-12-01] #work\n")
		},
		call: tool("obsidian_list_tasks", `{"folder":"Tasks"}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			want := `{"success":true,"data":{"total":2,"items":[` +
				`{"path":"Tasks/B.md","line":4,"status":"todo","text":"sooner #work","due":"2026-12-01","tags":["work"],"etag":"` +
				note.ETag([]byte("```\n- [ ] in code\n```\n- [ ] sooner [due:: 2026-12-01] #work\n")) + `"},` +
				`{"path":"Tasks/A.md","line":1,"status":"todo","text":"later","due":"2026-12-02","etag":"` +
				note.ETag([]byte("- [ ] later 📅 2026-12-02\n- [x] done ✅ 2026-11-01\n")) + `"}]}}`
			if string(data) != want {
				t.Errorf("tasks = %s\nwant %s", data, want)
			}
		}},
	{name: "complete a task", remote: true, setup: write("Tasks/T.md", "- [ ] call ^c\n- [ ] write\n"),
		call:  tool("obsidian_update_task", `{"path":"Tasks/T.md","operation":"complete","block":"c"}`),
		files: map[string]string{"Tasks/T.md": "- [x] call ✅ " + time.Now().Format(time.DateOnly) + " ^c\n- [ ] write\n"}},
	{name: "complete a recurring task: its next occurrence above it", remote: true,
		setup: write("Tasks/R.md", "- [ ] water 🔁 every 3 days ⏳ 2026-01-01 📅 2026-01-02 ^w\n"),
		call:  tool("obsidian_update_task", `{"path":"Tasks/R.md","operation":"toggle","line":1,"text":"water"}`),
		files: map[string]string{"Tasks/R.md": "- [ ] water 🔁 every 3 days ⏳ 2026-01-04 📅 2026-01-05\n" +
			"- [x] water 🔁 every 3 days ⏳ 2026-01-01 📅 2026-01-02 ✅ " + time.Now().Format(time.DateOnly) + " ^w\n"}},
	{name: "complete a recurring task as the Tasks plugin's settings say: below, with a created date",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, ".obsidian/community-plugins.json", `["obsidian-tasks-plugin"]`)
			writeFile(t, dir, ".obsidian/plugins/obsidian-tasks-plugin/data.json", `{"recurrenceOnNextLine":true,"setCreatedDate":true,"setDoneDate":false}`)
			writeFile(t, dir, "Tasks/R.md", "- [ ] pay 🔁 every month 📅 2026-01-31\n")
		},
		call: tool("obsidian_update_task", `{"path":"Tasks/R.md","operation":"complete","line":1,"text":"pay"}`),
		files: map[string]string{"Tasks/R.md": "- [x] pay 🔁 every month 📅 2026-01-31\n" +
			"- [ ] pay 🔁 every month ➕ " + time.Now().Format(time.DateOnly) + " 📅 2026-02-28\n"}},
	{name: "a recurrence rule the Tasks plugin does not read changes nothing", remote: true,
		setup: write("Tasks/R.md", "- [ ] moon 🔁 every blue moon 📅 2026-01-02\n"),
		call:  tool("obsidian_update_task", `{"path":"Tasks/R.md","operation":"complete","line":1,"text":"moon"}`),
		kind:  errors.Unsupported, files: map[string]string{"Tasks/R.md": "- [ ] moon 🔁 every blue moon 📅 2026-01-02\n"}},
	{name: "tasks under the Tasks plugin's global filter",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, ".obsidian/community-plugins.json", `["obsidian-tasks-plugin"]`)
			writeFile(t, dir, ".obsidian/plugins/obsidian-tasks-plugin/data.json", `{"globalFilter":"#task"}`)
			writeFile(t, dir, "Tasks/G.md", "- [ ] shopping list item\n- [ ] #task file taxes\n")
		},
		call: tool("obsidian_list_tasks", `{"folder":"Tasks"}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			want := `{"success":true,"data":{"total":1,"items":[{"path":"Tasks/G.md","line":2,"status":"todo","text":"#task file taxes","tags":["task"],"etag":"` +
				note.ETag([]byte("- [ ] shopping list item\n- [ ] #task file taxes\n")) + `"}]}}`
			if string(data) != want {
				t.Errorf("tasks = %s\nwant %s", data, want)
			}
		}},
	{name: "read a canvas: groups, and a file node whose file is gone", remote: true,
		setup: write("Boards/Map.canvas", "{\"nodes\":[{\"id\":\"g\",\"type\":\"group\",\"label\":\"Now\",\"x\":0,\"y\":0,\"width\":900,\"height\":900},"+
			"{\"id\":\"f\",\"type\":\"file\",\"file\":\"Projects/Plan.md\",\"x\":10,\"y\":10,\"width\":400,\"height\":400},"+
			"{\"id\":\"m\",\"type\":\"file\",\"file\":\"Gone.md\",\"x\":1000,\"y\":0,\"width\":400,\"height\":400}],"+
			"\"edges\":[{\"id\":\"e\",\"fromNode\":\"f\",\"toNode\":\"m\"}]}"),
		call: tool("obsidian_read_canvas", `{"path":"Boards/Map.canvas"}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			for _, want := range []string{`{"id":"f","type":"file","file":"Projects/Plan.md","group":"g","x":10,"y":10,"width":400,"height":400}`,
				`{"id":"m","type":"file","file":"Gone.md","missing":true,"x":1000,"y":0,"width":400,"height":400}`,
				`"edges":[{"id":"e","fromNode":"f","toNode":"m"}]`} {
				if !strings.Contains(string(data), want) {
					t.Errorf("canvas read lacks %s:\n%s", want, data)
				}
			}
		}},
	{name: "edit a canvas: a node and an edge to it", remote: true,
		setup: write("Boards/Map.canvas", "{\n\t\"nodes\":[\n\t\t{\"id\":\"a\",\"type\":\"text\",\"text\":\"A\",\"x\":0,\"y\":0,\"width\":250,\"height\":60}\n\t],\n\t\"edges\":[]\n}"),
		call:  tool("obsidian_edit_canvas", `{"path":"Boards/Map.canvas","add":[{"id":"b","type":"text","text":"B & <C>"},{"id":"ab","fromNode":"a","toNode":"b"}]}`),
		files: map[string]string{"Boards/Map.canvas": "{\n\t\"nodes\":[\n\t\t{\"id\":\"a\",\"type\":\"text\",\"text\":\"A\",\"x\":0,\"y\":0,\"width\":250,\"height\":60},\n" +
			"\t\t{\"id\":\"b\",\"type\":\"text\",\"text\":\"B & <C>\",\"x\":0,\"y\":100,\"width\":250,\"height\":60}\n\t],\n\t\"edges\":[\n\t\t{\"id\":\"ab\",\"fromNode\":\"a\",\"toNode\":\"b\"}\n\t]\n}"}},
	{name: "create a canvas", remote: true,
		call:  tool("obsidian_edit_canvas", `{"path":"Boards/New.canvas","create":true,"add":[{"id":"a","type":"file","file":"Projects/Plan.md","x":0,"y":0}]}`),
		files: map[string]string{"Boards/New.canvas": "{\n\t\"nodes\":[\n\t\t{\"id\":\"a\",\"type\":\"file\",\"file\":\"Projects/Plan.md\",\"x\":0,\"y\":0,\"width\":400,\"height\":400}\n\t],\n\t\"edges\":[]\n}"}},
	{name: "a canvas's text is searched and its file nodes are backlinks",
		setup: write("Boards/Map.canvas", "{\n\t\"nodes\":[\n\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"the zeppelin launch\",\"x\":0,\"y\":0,\"width\":250,\"height\":60},\n"+
			"\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"Projects/Plan.md\",\"x\":0,\"y\":100,\"width\":400,\"height\":400}\n\t],\n\t\"edges\":[]\n}"),
		call: func(ctx context.Context, b tools.Vault) (any, error) {
			res, err := b.Search.Search(ctx, note.SearchRequest{Query: "zeppelin", Limit: 5})
			if err != nil {
				return nil, err
			}
			bl, err := b.Graph.Backlinks(ctx, note.ByPath("Projects/Plan.md"))
			return []any{res.Hits, bl}, err
		},
		check: func(t *testing.T, subject string, got any, _ string) {
			data, _ := json.Marshal(got)
			if !strings.Contains(string(data), `"path":"Boards/Map.canvas"`) || !strings.Contains(string(data), `{"path":"Boards/Map.canvas","line":4}`) {
				t.Errorf("%s: search hits and backlinks %s", subject, data)
			}
		}},
	{name: "read an image attachment, with the notes that embed it",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, "Notes/Gallery.md", "# Gallery\n![[pic.png|300]]\n")
		},
		call:  tool("obsidian_read_attachment", `{"path":"Attachments/pic.png"}`),
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported},
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			var a struct {
				Type       string         `json:"type"`
				Size       int            `json:"size"`
				Image      bool           `json:"image"`
				EmbeddedBy []note.LinkRef `json:"embedded_by"`
			}
			if err := json.Unmarshal(data, &a); err != nil || a.Type != "image/png" || a.Size != 8 || !a.Image ||
				!slices.Equal(a.EmbeddedBy, []note.LinkRef{{Path: "Notes/Gallery.md", Line: 2}}) {
				t.Errorf("attachment = %s", data)
			}
		}},
	{name: "unused attachments: embedded by no note or canvas",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, "Assets/used.png", "x")
			writeFile(t, dir, "Assets/shown.jpg", "x")
			writeFile(t, dir, "Assets/linked.pdf", "x")
			writeFile(t, dir, "Assets/old.mp3", "x")
			writeFile(t, dir, "Assets/Orphan note.md", "not an attachment")
			writeFile(t, dir, "Notes/Uses.md", "![[used.png]] and [the doc](../Assets/linked.pdf)\n")
			writeFile(t, dir, "Boards/B.canvas", `{"nodes":[{"id":"a","type":"file","file":"Assets/shown.jpg","x":0,"y":0,"width":1,"height":1}]}`)
		},
		call:  tool("obsidian_list_files", `{"folder":"Assets","recursive":true,"unused":true}`),
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported},
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			if !strings.Contains(string(data), `"total":1,"items":[{"path":"Assets/old.mp3","type":"file","size":1,`) {
				t.Errorf("unused = %s", data)
			}
		}},
	{name: "move an attachment: its embeds follow", remote: true,
		setup: write("Notes/Uses.md", "![[Attachments/pic.png]] and ![pic](../Attachments/pic.png)\n"),
		call:  move(note.ByPath("Attachments/pic.png"), "Media"),
		want:  note.Moved{From: "Attachments/pic.png", To: "Media/pic.png"},
		files: map[string]string{"Media/pic.png": "\x89PNG\r\n\x1a\n", "Notes/Uses.md": "![[pic.png]] and ![pic](pic.png)\n"}}, // shortest form, Obsidian's default
	{name: "rename an attachment keeps its extension and its embeds",
		setup: write("Notes/Uses.md", "![[pic.png]]\n"),
		call:  rename(note.ByPath("Attachments/pic.png"), "photo"),
		want:  note.Moved{From: "Attachments/pic.png", To: "Attachments/photo.png"},
		files: map[string]string{"Attachments/photo.png": "\x89PNG\r\n\x1a\n", "Notes/Uses.md": "![[photo.png]]\n"}},
	{name: "query a base's view", remote: true, // cli-remote: through the app's base:query
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, "Shelf/Dune.md", "---\nprice: 30\nage: 3\nstatus: reading\n---\n#book [[Plan]]\n")
			writeFile(t, dir, "Shelf/Emma.md", "---\nprice: 2\nage: 10\nstatus: todo\n---\n#book\n")
			writeFile(t, dir, "Shelf/Done.md", "---\nprice: 99\nage: 1\nstatus: done\n---\n#book\n")
			writeFile(t, dir, "Books.base", "filters:\n  and:\n    - file.inFolder(\"Shelf\")\n    - file.hasTag(\"book\")\n"+
				"formulas:\n  ppu: \"(price / age).toFixed(2)\"\nviews:\n  - type: table\n    name: Open\n    filters: 'status != \"done\"'\n"+
				"    order: [file.basename, price, formula.ppu, file.links]\n    sort:\n      - property: price\n        direction: DESC\n  - type: cards\n    name: All\n")
		},
		call: tool("obsidian_query_base", `{"path":"Books.base","view":"Open"}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			want := `{"success":true,"data":{"path":"Books.base","view":"Open","columns":["file.basename","price","formula.ppu","file.links"],"total":2,"rows":[` +
				`{"path":"Shelf/Dune.md","values":{"file.basename":"Dune","file.links":["Projects/Plan.md"],"formula.ppu":"10.00","price":30}},` +
				`{"path":"Shelf/Emma.md","values":{"file.basename":"Emma","file.links":[],"formula.ppu":"0.20","price":2}}]}}`
			if string(data) != want {
				t.Errorf("base = %s\nwant %s", data, want)
			}
		}},
	{name: "a base using a function not evaluated natively is refused, naming it", remote: true,
		setup: write("Odd.base", "filters: 'file.hasTag(\"x\") && file.backlinks.length > 2'\nviews:\n  - type: table\n    name: T\n"),
		call:  tool("obsidian_query_base", `{"path":"Odd.base"}`),
		kind:  errors.Unsupported, kinds: map[string]errors.Kind{"cli-remote": errors.CLIError}, // the app's own refusal
		check: func(t *testing.T, _ string, got any, _ string) {
			if e, _ := got.(*errors.Error); e == nil || !strings.Contains(e.Message, "file.backlinks is not supported") {
				t.Errorf("error %v does not name the function", got)
			}
		}},
	{name: "list the bases and their views", remote: true,
		setup: write("Books.base", "views:\n  - type: table\n    name: Open\n    order: [file.name]\n  - type: cards\n    name: All\n"),
		call:  tool("obsidian_query_base", `{}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			want := `{"success":true,"data":{"bases":[{"path":"Books.base","views":[{"type":"table","name":"Open","columns":["file.name"]},{"type":"cards","name":"All"}]}],"total":1}}`
			if string(data) != want {
				t.Errorf("bases = %s\nwant %s", data, want)
			}
		}},
	{name: "templates listed from the template folder",
		setup: func(t *testing.T, dir string) {
			writeFile(t, dir, ".obsidian/templates.json", `{"folder":"Templates"}`)
			writeFile(t, dir, "Templates/Meeting.md", "# {{title}}\n{{date:YYYY-MM-DD}}\n")
		},
		call: tool("obsidian_list_templates", `{}`),
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			if want := `{"success":true,"data":{"folder":"Templates","templates":[{"path":"Templates/Meeting.md","name":"Meeting","variables":["title","date:YYYY-MM-DD"]}]}}`; string(data) != want {
				t.Errorf("templates = %s, want %s", data, want)
			}
		}},
	{name: "daily note read of a day without one", setup: dailySettings, remote: true,
		call: tool("obsidian_daily_note", `{"operation":"read"}`), kind: errors.FileNotFound},
	{name: "append with a stale etag changes nothing",
		call: tool("obsidian_append_to_note", `{"path":"Notes/Dup.md","content":"x","if_match":"`+note.ETag([]byte("older"))+`"}`),
		kind: errors.RevisionConflict, files: map[string]string{"Notes/Dup.md": "notes dup"}},
	{name: "append with the current etag",
		call:  tool("obsidian_append_to_note", `{"path":"Notes/Dup.md","content":"x","if_match":"`+note.ETag([]byte("notes dup"))+`"}`),
		files: map[string]string{"Notes/Dup.md": "notes dup\n\nx"}},
	{name: "delete with a stale etag keeps the note",
		call: tool("obsidian_delete_note", `{"path":"Notes/Dup.md","permanent":true,"if_match":"`+note.ETag([]byte("older"))+`"}`),
		kind: errors.RevisionConflict, files: map[string]string{"Notes/Dup.md": "notes dup"}},

	// delete
	{name: "delete to the trash", call: del(note.ByName("Plan"), false), want: note.Deleted{Path: "Projects/Plan.md"},
		files: map[string]string{"Projects/Plan.md": gone, ".trash/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "delete keeps trashed names unique", setup: write(".trash/Dup.md", "older"),
		call: del(note.ByPath("Notes/Dup.md"), false), want: note.Deleted{Path: "Notes/Dup.md"},
		files: map[string]string{".trash/Dup.md": "older", ".trash/Dup 1.md": "notes dup", "Notes/Dup.md": gone}},
	{name: "delete permanently", call: del(note.ByPath("Notes/Dup.md"), true), want: note.Deleted{Path: "Notes/Dup.md", Permanent: true},
		files: map[string]string{"Notes/Dup.md": gone, ".trash/Dup.md": gone}},
	{name: "delete missing", call: del(note.ByPath("Notes/Nope.md"), false), kind: errors.FileNotFound},
	{name: "delete ambiguous", call: del(note.ByName("Dup"), true), kind: errors.AmbiguousName,
		files: map[string]string{"Notes/Dup.md": "notes dup", "Other/Dup.md": "other dup"}},

	// move / rename, with links kept
	{name: "rename rewrites links", call: rename(note.ByPath("Projects/Plan.md"), "Roadmap"),
		want: note.Moved{From: "Projects/Plan.md", To: "Projects/Roadmap.md"},
		files: map[string]string{
			"Projects/Plan.md":    gone,
			"Projects/Roadmap.md": baseVault["Projects/Plan.md"],
			"Welcome.md":          "---\ntitle: Welcome\n---\n# Welcome\nSee [[Roadmap]], [[Roadmap#Goals|the goals]] and ![[Roadmap#^b1]].\n",
			"Projects/Index.md":   "- [plan](Roadmap.md)\n- [plan again](<Roadmap.md#Goals>)\n- `[[Plan]]` stays\n```\n[[Plan]]\n```\n",
		},
		check: wantLinks(5, 2)},
	{name: "move to a folder rewrites path links", call: move(note.ByName("Plan"), "Archive/2026"),
		want: note.Moved{From: "Projects/Plan.md", To: "Archive/2026/Plan.md"},
		files: map[string]string{
			"Archive/2026/Plan.md": baseVault["Projects/Plan.md"],
			"Welcome.md":           "---\ntitle: Welcome\n---\n# Welcome\nSee [[Plan]], [[Plan#Goals|the goals]] and ![[Plan#^b1]].\n",
			"Projects/Index.md":    "- [plan](Plan.md)\n- [plan again](<Plan.md#Goals>)\n- `[[Plan]]` stays\n```\n[[Plan]]\n```\n",
		},
		check: wantLinks(1, 1)},
	{name: "move keeps the canvases that show the note",
		setup: write("Boards/Map.canvas", "{\n\t\"nodes\":[\n\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"Projects/Plan.md\",\"subpath\":\"#Goals\",\"x\":0,\"y\":0,\"width\":400,\"height\":400},\n"+
			"\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"See [[Plan]] <now>\",\"x\":500,\"y\":0,\"width\":250,\"height\":60}\n\t],\n\t\"edges\":[]\n}"),
		call: move(note.ByPath("Projects/Plan.md"), "Archive/2026"),
		want: note.Moved{From: "Projects/Plan.md", To: "Archive/2026/Plan.md"},
		files: map[string]string{"Boards/Map.canvas": "{\n\t\"nodes\":[\n\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"Archive/2026/Plan.md\",\"subpath\":\"#Goals\",\"x\":0,\"y\":0,\"width\":400,\"height\":400},\n" +
			"\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"See [[Plan]] <now>\",\"x\":500,\"y\":0,\"width\":250,\"height\":60}\n\t],\n\t\"edges\":[]\n}"}},
	{name: "rename rewrites a canvas's file nodes and text links",
		setup: write("Boards/Map.canvas", "{\"nodes\":[{\"id\":\"f\",\"type\":\"file\",\"file\":\"Projects/Plan.md\",\"x\":0,\"y\":0,\"width\":400,\"height\":400},"+
			"{\"id\":\"t\",\"type\":\"text\",\"text\":\"See [[Plan]]\",\"x\":500,\"y\":0,\"width\":250,\"height\":60}],\"edges\":[]}"),
		call: rename(note.ByPath("Projects/Plan.md"), "Roadmap"),
		want: note.Moved{From: "Projects/Plan.md", To: "Projects/Roadmap.md"},
		files: map[string]string{"Boards/Map.canvas": "{\n\t\"nodes\":[\n\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"Projects/Roadmap.md\",\"x\":0,\"y\":0,\"width\":400,\"height\":400},\n" +
			"\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"See [[Roadmap]]\",\"x\":500,\"y\":0,\"width\":250,\"height\":60}\n\t],\n\t\"edges\":[]\n}"}},
	{name: "move to a taken name picks the unambiguous form", call: move(note.ByPath("Projects/Plan.md"), "Other/Dup.md"),
		kind: errors.FileExists, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"], "Other/Dup.md": "other dup"}},
	{name: "move into a clash of names", call: move(note.ByPath("Projects/Plan.md"), "Archive/Dup.md"),
		want: note.Moved{From: "Projects/Plan.md", To: "Archive/Dup.md"},
		files: map[string]string{
			"Welcome.md":    "---\ntitle: Welcome\n---\n# Welcome\nSee [[Archive/Dup]], [[Archive/Dup#Goals|the goals]] and ![[Archive/Dup#^b1]].\n",
			"Refs/Links.md": "[[Dup]] [[Notes/Dup]] [[Missing note]]",
		}},
	{name: "move with spaces encodes markdown links", call: move(note.ByPath("Projects/Plan.md"), "Projects/Big Plan (v2).md"),
		want:  note.Moved{From: "Projects/Plan.md", To: "Projects/Big Plan (v2).md"},
		files: map[string]string{"Projects/Index.md": "- [plan](Big%20Plan%20%28v2%29.md)\n- [plan again](<Big Plan (v2).md#Goals>)\n- `[[Plan]]` stays\n```\n[[Plan]]\n```\n"}},
	{name: "move a note with relative links", setup: write("Projects/Rel.md", "[up](../Welcome.md) [[Plan]]"),
		call: move(note.ByPath("Projects/Rel.md"), "Deep/er"), want: note.Moved{From: "Projects/Rel.md", To: "Deep/er/Rel.md"},
		files: map[string]string{"Deep/er/Rel.md": "[up](Welcome.md) [[Plan]]"}},
	{name: "move onto itself is a no-op", call: move(note.ByPath("Projects/Plan.md"), "Projects"),
		want: note.Moved{From: "Projects/Plan.md", To: "Projects/Plan.md"}, files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "move into .obsidian", call: move(note.ByPath("Projects/Plan.md"), ".obsidian"), kind: errors.PermissionDenied,
		files: map[string]string{"Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "move traversal", call: move(note.ByPath("Projects/Plan.md"), "../elsewhere"), kind: errors.InvalidParams},
	{name: "move missing", call: move(note.ByName("Nope"), "A"), kind: errors.FileNotFound},
	{name: "rename to a taken name", call: rename(note.ByPath("Notes/Dup.md"), "../Other/Dup"), kind: errors.InvalidParams},
	{name: "rename onto an existing note", setup: write("Projects/Roadmap.md", "taken"),
		call: rename(note.ByPath("Projects/Plan.md"), "Roadmap"), kind: errors.FileExists,
		files: map[string]string{"Projects/Roadmap.md": "taken", "Projects/Plan.md": baseVault["Projects/Plan.md"]}},
	{name: "rename to a hidden name", call: rename(note.ByPath("Projects/Plan.md"), ".Plan"), kind: errors.PermissionDenied},
	{name: "rename changes case only", call: rename(note.ByPath("Notes/Dup.md"), "dup"),
		want: note.Moved{From: "Notes/Dup.md", To: "Notes/dup.md"}, files: map[string]string{"Notes/dup.md": "notes dup"}},

	// open / file_info
	{name: "open", call: open(note.ByName("Welcome")), want: note.Opened{Path: "Welcome.md"},
		kinds: map[string]errors.Kind{"native": errors.Unsupported, "auto-app-closed": errors.NotRunning}},
	{name: "list the app's commands", remote: true, call: tool("obsidian_list_commands", `{"filter":"editor:"}`),
		kinds: map[string]errors.Kind{"native": errors.Unsupported, "auto-app-closed": errors.NotRunning},
		check: func(t *testing.T, _ string, got any, _ string) {
			data, _ := json.Marshal(got)
			if want := `{"success":true,"data":{"total":1,"items":[{"id":"editor:save-file","name":"Save current file"}]}}`; string(data) != want {
				t.Errorf("commands = %s, want %s", data, want)
			}
		}},
	{name: "run a command", remote: true, call: tool("obsidian_run_command", `{"id":"app:reload"}`),
		kinds: map[string]errors.Kind{"native": errors.Unsupported, "auto-app-closed": errors.NotRunning},
		check: func(t *testing.T, _ string, got any, _ string) {
			if data, _ := json.Marshal(got); !strings.Contains(string(data), `"data":{"id":"app:reload","output":"Executed: app:reload"}`) {
				t.Errorf("run = %s", data)
			}
		}},
	{name: "run a command the app does not have", remote: true, call: tool("obsidian_run_command", `{"id":"nope:nothing"}`),
		kind: errors.InvalidParams, kinds: map[string]errors.Kind{"native": errors.Unsupported, "auto-app-closed": errors.NotRunning}},
	{name: "file info", call: info(note.ByName("2026-11-21")),
		check: func(t *testing.T, _ string, got any, _ string) {
			i := got.(note.Info)
			if i.Path != "Daily/2026-11-21.md" || i.Name != "2026-11-21" || i.Extension != "md" || i.Size != 16 {
				t.Errorf("info = %+v", i)
			}
			if time.Since(i.Modified) > time.Hour || i.Created.After(i.Modified) || i.Modified.Location() != time.UTC {
				t.Errorf("times: created %v, modified %v", i.Created, i.Modified)
			}
		}},
	{name: "file info of an attachment", call: info(note.ByPath("Attachments/pic.png")),
		check: func(t *testing.T, _ string, got any, _ string) {
			if i := got.(note.Info); i.Name != "pic" || i.Extension != "png" || i.Size != 8 {
				t.Errorf("info = %+v", i)
			}
		}},
	{name: "file info missing", call: info(note.ByPath("x.md")), kind: errors.FileNotFound},

	// the read side
	{readSide: true, name: "search ranks a heading match first", call: search("goals", ""),
		check: func(t *testing.T, _ string, got any, _ string) {
			r := got.(note.SearchResult)
			if r.Total != 3 || r.Hits[0].Path != "Projects/Plan.md" || r.Hits[1].Path != "Welcome.md" || r.Hits[0].Snippets[0].Text != "## <mark>Goals</mark>" {
				t.Errorf("search goals = %+v", r)
			}
		}},
	{readSide: true, name: "search filters", call: search(`gardens tag:proj [status:done] -"no such phrase"`, ""),
		check: func(t *testing.T, _ string, got any, _ string) {
			r := got.(note.SearchResult)
			if r.Total != 1 || r.Hits[0].Path != "Refs/Tagged.md" || r.Hits[0].Snippets[0].Line != 6 {
				t.Errorf("search = %+v", r)
			}
		}},
	{readSide: true, name: "search a bad regex", call: searchRegex("(unclosed"), kind: errors.InvalidParams},
	{readSide: true, name: "search a regex across a line end", call: searchRegex(`goals\nship`),
		want:  note.SearchResult{Total: 1, Hits: []note.Hit{{Path: "Projects/Plan.md", Score: 1, Snippets: []note.Snippet{{Line: 2, Text: "## <mark>Goals</mark>"}}}}},
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported}}, // argv cannot carry \n
	{readSide: true, name: "list by time", setup: touch("Refs/Links.md", time.Minute),
		call: list(note.ListRequest{Recursive: true, Sort: "modified", Limit: 1}), check: wantEntries("Refs/Links.md", 17),
		kinds: map[string]errors.Kind{"cli-remote": errors.Unsupported}},
	{readSide: true, name: "list the root", call: list(note.ListRequest{Limit: 100}),
		check: wantEntries("Attachments Daily Notes Other Projects Refs Templates Welcome.md", 8)},
	{readSide: true, name: "list notes below a folder", call: list(note.ListRequest{Recursive: true, Ext: "md", Limit: 2, Offset: 1}),
		check: wantEntries("Notes/Dup.md Other/Dup.md", 9)},
	{readSide: true, name: "list a glob", call: list(note.ListRequest{Folder: "Projects", Glob: "p*", Limit: 100}), check: wantEntries("Projects/Plan.md", 1)},
	{readSide: true, name: "list a missing folder", call: list(note.ListRequest{Folder: "Nope", Limit: 10}), kind: errors.FileNotFound},
	{readSide: true, name: "links resolved", call: outLinks(note.ByName("Welcome")),
		want: note.Links{Path: "Welcome.md", Links: []note.OutLink{
			{Target: "Plan", Path: "Projects/Plan.md", Resolved: true, Line: 5},
			{Target: "Projects/Plan", Subpath: "#Goals", Path: "Projects/Plan.md", Resolved: true, Line: 5},
			{Target: "Plan", Subpath: "#^b1", Path: "Projects/Plan.md", Resolved: true, Line: 5, Embed: true}}}},
	{readSide: true, name: "backlinks", call: backlinks(note.ByPath("Projects/Plan.md")),
		wants: map[string]any{"cli-remote": note.Backlinks{Path: "Projects/Plan.md", Total: 2, Backlinks: []note.LinkRef{{Path: "Projects/Index.md"}, {Path: "Welcome.md"}}}},
		want: note.Backlinks{Path: "Projects/Plan.md", Total: 5, Backlinks: []note.LinkRef{
			{Path: "Projects/Index.md", Line: 1}, {Path: "Projects/Index.md", Line: 2},
			{Path: "Welcome.md", Line: 5}, {Path: "Welcome.md", Line: 5}, {Path: "Welcome.md", Line: 5}}}},
	{readSide: true, name: "backlinks of a missing note", call: backlinks(note.ByName("Nope")), kind: errors.FileNotFound},
	{readSide: true, name: "unresolved", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Graph.Unresolved(ctx) },
		wants: map[string]any{"cli-remote": []note.Unresolved{{Target: "Missing note", Count: 1, Sources: []note.LinkRef{}}}},
		want:  []note.Unresolved{{Target: "Missing note", Count: 1, Sources: []note.LinkRef{{Path: "Refs/Links.md", Line: 1}}}}},
	{readSide: true, name: "orphans", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Graph.Orphans(ctx) },
		want: []string{"Daily/2026-11-21.md", "Other/Dup.md", "Projects/Index.md", "Refs/Links.md", "Refs/Tagged.md", "Templates/Meeting.md"}},
	{readSide: true, name: "tags, nested and never in code", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Meta.Tags(ctx) },
		want: []note.TagCount{{Tag: "inline", Count: 1}, {Tag: "proj", Count: 1}, {Tag: "proj/alpha", Count: 1}}},
	{readSide: true, name: "tagged notes", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Meta.Tagged(ctx, "PROJ") },
		want: []string{"Refs/Tagged.md"}},
	{readSide: true, name: "property names", call: func(ctx context.Context, b tools.Vault) (any, error) { return b.Meta.Properties(ctx) },
		want: []note.PropertyStat{{Name: "status", Count: 1, Types: []string{"text"}}, {Name: "tags", Count: 1, Types: []string{"list"}}, {Name: "title", Count: 1, Types: []string{"text"}}}},
}, blockScenarios()...)

// blockScenarios are append and prepend next to each kind of Markdown
// block, on every backend the app included: the text is a block of its
// own, and continues a list, a table or a quote where it is one.
func blockScenarios() []scenario {
	cases := []struct{ kind, existing, text, appended, prepended string }{
		{"a paragraph", "Para.\n", "New.", "Para.\n\nNew.", "New.\n\nPara.\n"},
		{"a paragraph without a final newline", "Para.", "New.", "Para.\n\nNew.", "New.\n\nPara."},
		{"a list", "- a\n- b\n", "- c", "- a\n- b\n- c", "- c\n- a\n- b\n"},
		{"a task list", "- [ ] a\n", "- [x] b\n", "- [ ] a\n- [x] b\n", "- [x] b\n- [ ] a\n"},
		{"a table", "| k | v |\n|---|---|\n| a | 1 |\n", "| b | 2 |", "| k | v |\n|---|---|\n| a | 1 |\n| b | 2 |", "| b | 2 |\n\n| k | v |\n|---|---|\n| a | 1 |\n"},
		{"a callout", "> [!note] N\n> body\n", "After.", "> [!note] N\n> body\n\nAfter.", "After.\n\n> [!note] N\n> body\n"},
		{"a callout, continued", "> [!note] N\n> body\n", "> more", "> [!note] N\n> body\n> more", "> more\n\n> [!note] N\n> body\n"},
		{"a quote", "> said\n", "Reply.", "> said\n\nReply.", "Reply.\n\n> said\n"},
		{"a heading", "## Log\n", "- item", "## Log\n- item", "- item\n## Log\n"},
		{"a blank line", "Para.\n\n", "New.", "Para.\n\nNew.", "New.\n\nPara.\n\n"},
		{"frontmatter", "---\na: 1\n---\nBody.\n", "New.", "---\na: 1\n---\nBody.\n\nNew.", "---\na: 1\n---\nNew.\n\nBody.\n"},
		{"CRLF lines", "Para.\r\n", "New.", "Para.\r\n\r\nNew.", "New.\r\n\r\nPara.\r\n"},
	}
	var out []scenario
	for i, c := range cases {
		p := fmt.Sprintf("Blocks/%d.md", i)
		out = append(out,
			scenario{name: "append after " + c.kind, remote: true, setup: write(p, c.existing),
				call: appendTo(note.ByPath(p), c.text, false), want: note.Written{Path: p, Bytes: len(c.text)},
				files: map[string]string{p: c.appended}},
			scenario{name: "prepend before " + c.kind, remote: true, setup: write(p, c.existing),
				call: prependTo(note.ByPath(p), c.text, false), want: note.Written{Path: p, Bytes: len(c.text)},
				files: map[string]string{p: c.prepended}})
	}
	today := "Journal/" + time.Now().Format(time.DateOnly) + ".md"
	return append(out,
		scenario{name: "daily append after a paragraph, through the app when it serves", remote: true,
			setup: func(t *testing.T, dir string) { dailySettings(t, dir); writeFile(t, dir, today, "# Today\nDone.") },
			call:  tool("obsidian_daily_note", `{"operation":"append","content":"- next"}`),
			files: map[string]string{today: "# Today\nDone.\n\n- next"}},
		scenario{name: "daily prepend before a paragraph, through the app when it serves", remote: true,
			setup: func(t *testing.T, dir string) { dailySettings(t, dir); writeFile(t, dir, today, "Done.\n") },
			call:  tool("obsidian_daily_note", `{"operation":"prepend","content":"Top."}`),
			files: map[string]string{today: "Top.\n\nDone.\n"}},
		scenario{name: "daily append to a day created from a template that ends in text", remote: true,
			setup: func(t *testing.T, dir string) {
				dailySettings(t, dir)
				writeFile(t, dir, "Templates/Day.md", "# {{title}}\nMood:")
			},
			call:  tool("obsidian_daily_note", `{"operation":"append","content":"good"}`),
			files: map[string]string{today: "# " + time.Now().Format(time.DateOnly) + "\nMood:\n\ngood"}},
		scenario{name: "append inline joins the last line, through the app too", remote: true, setup: write("Blocks/inline.md", "Para."),
			call: appendTo(note.ByPath("Blocks/inline.md"), " more", true), want: note.Written{Path: "Blocks/inline.md", Bytes: 5},
			files: map[string]string{"Blocks/inline.md": "Para. more"}},
	)
}

func search(q, folder string) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) {
		return b.Search.Search(ctx, note.SearchRequest{Query: q, Mode: note.SearchText, Folder: folder, Limit: 20})
	}
}

func searchRegex(q string) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) {
		return b.Search.Search(ctx, note.SearchRequest{Query: q, Mode: note.SearchRegex, Limit: 20})
	}
}

func list(req note.ListRequest) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Files.List(ctx, req) }
}

func outLinks(loc note.Locator) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Graph.Links(ctx, loc) }
}

func backlinks(loc note.Locator) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Graph.Backlinks(ctx, loc) }
}

// wantEntries checks a listing's paths (space-separated) and total; files
// must carry their size and every entry a recent time.
func wantEntries(paths string, total int) func(*testing.T, string, any, string) {
	return func(t *testing.T, subject string, got any, _ string) {
		l := got.(note.Listing)
		var ps []string
		for _, e := range l.Entries {
			ps = append(ps, e.Path)
			if subject == "cli-remote" {
				continue // the app lists no sizes or times
			}
			if e.Type == "file" && e.Size == 0 || time.Since(e.Modified) > time.Hour {
				t.Errorf("entry %+v lacks its size or time", e)
			}
		}
		if strings.Join(ps, " ") != paths || l.Total != total {
			t.Errorf("listing = %q (total %d), want %q (total %d)", ps, l.Total, paths, total)
		}
	}
}

func TestConformance(t *testing.T) {
	for _, sub := range subjects {
		t.Run(sub.name, func(t *testing.T) {
			t.Parallel()
			for _, sc := range scenarios {
				if sub.readSideOnly && !sc.readSide && !sc.remote {
					continue
				}
				t.Run(sc.name, func(t *testing.T) {
					t.Parallel()
					runScenario(t, sub, sc, newVault(t))
				})
			}
		})
	}
}

// runScenario runs one scenario on a subject built on the vault in dir.
func runScenario(t *testing.T, sub subject, sc scenario, dir string) {
	if sc.setup != nil {
		sc.setup(t, dir)
	}
	b := sub.new(t, dir)
	got, err := sc.call(t.Context(), b)
	wantKind := sc.kind
	if k, ok := sc.kinds[sub.name]; ok {
		wantKind = k
	}
	if wantKind != "" {
		e := errors.From(err)
		if err == nil || e.Kind != wantKind {
			t.Fatalf("got %+v, %v; want a %s error", got, err, wantKind)
		}
		if e.Message == "" || e.Code() != wantKind.Code() {
			t.Errorf("error %+v lacks a message or has the wrong code", e)
		}
		got = e
	} else if err != nil {
		t.Fatalf("unexpected error: %v", err)
	} else if want := sc.wantFor(sub.name); want != nil {
		if diff := compare(got, want); diff != "" {
			t.Errorf("result: %s", diff)
		}
	}
	for p, want := range sc.files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		switch {
		case want == gone && err == nil && !caseOnlyTwin(dir, p):
			t.Errorf("%s exists, want it gone", p)
		case want != gone && err != nil:
			t.Errorf("%s: %v", p, err)
		case want != gone && string(data) != want:
			t.Errorf("%s =\n%q\nwant\n%q", p, data, want)
		}
	}
	if sc.check != nil && (wantKind == "" || sc.kind != "") {
		sc.check(t, sub.name, got, dir)
	}
	noTempFiles(t, dir)
}

func (sc scenario) wantFor(subject string) any {
	if w, ok := sc.wants[subject]; ok {
		return w
	}
	return sc.want
}

// compare checks a result against want, ignoring what a backend may leave
// unset: the links a move rewrote (absent when Obsidian did it) and where
// the trash put a note.
func compare(got, want any) string {
	switch g := got.(type) {
	case note.Moved:
		g.Links = nil
		got = g
	case note.Deleted:
		g.TrashPath = ""
		got = g
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("got %+v, want %+v", got, want)
	}
	return ""
}

// wantLinks checks the counts a backend that rewrites links reports.
func wantLinks(links, notes int) func(*testing.T, string, any, string) {
	return func(t *testing.T, subject string, got any, _ string) {
		m := got.(note.Moved)
		if m.Links == nil {
			if subject == "cli" {
				return // Obsidian rewrote them and reports no counts
			}
			t.Fatalf("%s reported no link changes", subject)
		}
		if m.Links.Links != links || m.Links.Notes != notes || len(m.Links.Paths) != notes {
			t.Errorf("links = %+v, want %d links in %d notes", *m.Links, links, notes)
		}
	}
}

// dailySettings configures the Daily notes plugin: a folder and a
// template.
func dailySettings(t *testing.T, dir string) {
	writeFile(t, dir, ".obsidian/daily-notes.json", `{"folder":"Journal","template":"Templates/Day"}`)
	writeFile(t, dir, "Templates/Day.md", "# {{title}}\n")
}

// odd is a note with what editors get wrong: a byte order mark, CRLF,
// tabs, trailing spaces, LaTeX, a fenced block holding heading-like lines,
// quoting and comments in the frontmatter, and no final newline.
const odd = "\ufeff---\r\ntitle: \"Odd\" # keep me\r\nstatus: 'draft'\r\ntags: [a,  b]\r\n---\r\n# Plan\r\n\tindented\ttabs\r\n" +
	"$$\\frac{a}{b}$$\r\n```md\r\n## Risks\r\n```\r\n## Risks\r\n- old risk  \r\n### Deep\r\nd\r\n## Later\r\nend without newline"

// tool calls a tool through its handler, on the subject as the server
// would: for the edit side, whose logic lives in the tools.
func tool(name, args string) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) {
		st, ok := tools.Named(b, name)
		if !ok {
			return nil, fmt.Errorf("no tool %s", name)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.RawArguments = json.RawMessage(args)
		res, err := st.Handler(ctx, req)
		if err != nil {
			return nil, err
		}
		return res.StructuredContent, nil
	}
}

func read(loc note.Locator) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Notes.Read(ctx, loc) }
}

func create(req note.CreateRequest) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Notes.Create(ctx, req) }
}

func appendTo(loc note.Locator, content string, inline bool) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) {
		return b.Notes.Append(ctx, loc, content, inline)
	}
}

func prependTo(loc note.Locator, content string, inline bool) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) {
		return b.Notes.Prepend(ctx, loc, content, inline)
	}
}

func del(loc note.Locator, permanent bool) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Notes.Delete(ctx, loc, permanent) }
}

func move(loc note.Locator, to string) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Notes.Move(ctx, loc, to) }
}

func rename(loc note.Locator, name string) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Notes.Rename(ctx, loc, name) }
}

func open(loc note.Locator) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Notes.Open(ctx, loc, false) }
}

func info(loc note.Locator) func(context.Context, tools.Vault) (any, error) {
	return func(ctx context.Context, b tools.Vault) (any, error) { return b.Notes.FileInfo(ctx, loc) }
}

// newVault writes baseVault into a fresh folder.
func newVault(t *testing.T) string {
	dir := t.TempDir()
	for p, c := range baseVault {
		writeFile(t, dir, p, c)
	}
	return dir
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// touch dates a file ahead of now by ahead, now being when the scenario
// is set up: the table is built at start, and under -race a scenario may
// run minutes later, after files its vault got since.
func touch(rel string, ahead time.Duration) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		when := time.Now().Add(ahead)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(rel)), when, when); err != nil {
			t.Fatal(err)
		}
	}
}

// wantMessage checks that a refusal's message says what.
func wantMessage(what string) func(*testing.T, string, any, string) {
	return func(t *testing.T, _ string, got any, _ string) {
		if e := got.(*errors.Error); !strings.Contains(e.Message, what) {
			t.Errorf("message %q does not say %q", e.Message, what)
		}
	}
}

func write(rel, content string) func(*testing.T, string) {
	return func(t *testing.T, dir string) { writeFile(t, dir, rel, content) }
}

func chmod(rel string, mode os.FileMode) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(rel)), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// readOnlyDir makes a folder nobody may write to; root may, so it skips.
func readOnlyDir(rel string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if runtime.GOOS == "windows" || os.Geteuid() == 0 {
			t.Skip("needs a user the permission bits apply to")
		}
		p := filepath.Join(dir, rel)
		if err := os.Mkdir(p, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(p, 0o755) })
	}
}

// symlinkOut makes rel a symlink to a file or folder outside the vault.
func symlinkOut(rel string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if runtime.GOOS == "windows" {
			t.Skip("symlinks need privileges on Windows")
		}
		outside := t.TempDir()
		writeFile(t, outside, "secret.md", "secret")
		target := outside
		if strings.HasSuffix(rel, ".md") {
			target = filepath.Join(outside, "secret.md")
		}
		if err := os.Symlink(target, filepath.Join(dir, rel)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if data, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(data) != "secret" {
				t.Error("the file outside the vault was changed")
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("files were written outside the vault: %v", entries)
			}
		})
	}
}

func wantMode(t *testing.T, dir, rel string, mode os.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != mode {
		t.Errorf("%s mode = %v, want %v", rel, fi.Mode().Perm(), mode)
	}
}

// caseOnlyTwin reports whether p exists only as another spelling of a
// file on a case-insensitive file system.
func caseOnlyTwin(dir, p string) bool {
	entries, err := os.ReadDir(filepath.Dir(filepath.Join(dir, filepath.FromSlash(p))))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == filepath.Base(p) {
			return false
		}
	}
	return true
}

// noTempFiles checks that no write left a temporary file behind.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// TestReadSideFresh: a note created, edited or deleted behind the server's
// back (by Obsidian, sync or an editor) shows in the very next search, tag
// count and backlink query, on every backend.
func TestReadSideFresh(t *testing.T) {
	for _, sub := range subjects {
		t.Run(sub.name, func(t *testing.T) {
			t.Parallel()
			dir := newVault(t)
			b := sub.new(t, dir)
			ctx := t.Context()
			hits := func(q string) []string {
				t.Helper()
				r, err := b.Search.Search(ctx, note.SearchRequest{Query: q, Mode: note.SearchText, Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				var ps []string
				for _, h := range r.Hits {
					ps = append(ps, h.Path)
				}
				return ps
			}
			if got := hits("zucchini"); got != nil {
				t.Fatalf("zucchini before any write: %q", got)
			}
			writeFile(t, dir, "New/Veg.md", "zucchini #veg [[Welcome]]")
			// The note, and the note its line links to, by that link's
			// text (the app's search, as Obsidian's, has no link text).
			want := []string{"New/Veg.md", "Welcome.md"}
			if sub.name == "cli-remote" {
				want = want[:1]
			}
			if got := hits("zucchini"); !reflect.DeepEqual(got, want) {
				t.Errorf("after a create: %q, want %q", got, want)
			}
			// An edit in place, same size, within the same second: the
			// racy-clean rule must still see it, and the link's text
			// follows.
			writeFile(t, dir, "New/Veg.md", "cucumber #veg [[Welcome]]")
			if got := hits("zucchini"); got != nil {
				t.Errorf("after an edit: still %q", got)
			}
			if got := hits("cucumber"); !reflect.DeepEqual(got, want) {
				t.Errorf("after an edit: %q, want %q", got, want)
			}
			bl, err := b.Graph.Backlinks(ctx, note.ByPath("Welcome.md"))
			if err != nil || bl.Total != 2 {
				t.Errorf("backlinks of Welcome.md after the create: %+v %v", bl, err)
			}
			if err := os.Remove(filepath.Join(dir, "New", "Veg.md")); err != nil {
				t.Fatal(err)
			}
			if got := hits("cucumber"); got != nil {
				t.Errorf("after a delete: still %q", got)
			}
			tags, err := b.Meta.Tags(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range tags {
				if tc.Tag == "veg" {
					t.Errorf("the deleted note's tag is still counted: %+v", tags)
				}
			}
			if bl, err := b.Graph.Backlinks(ctx, note.ByPath("Welcome.md")); err != nil || bl.Total != 1 {
				t.Errorf("backlinks of Welcome.md after the delete: %+v %v", bl, err)
			}
		})
	}
}
