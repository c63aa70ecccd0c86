// Package hostile makes vaults that arrive with something planted in the
// server's state folder (.obsidian-mcp): links to the vault's top, to a
// folder of notes or out of the vault, files where folders go. A clone of
// a git vault, a shared sync folder or an unpacked archive can carry any
// of them. Tests of every face, and the fuzz targets, use the same
// layouts, and check with Snapshot that nothing outside the state folder
// changed.
//
// It is for tests only; nothing in the server imports it.
package hostile

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// StateDir is the state folder's name in a vault.
const StateDir = ".obsidian-mcp"

// Plant is one thing put in a vault: a link at Path to Target, or, when
// Target is empty, a file (File) or a folder at Path. Target may start
// with "$OUT", the folder outside the vault.
type Plant struct {
	Path   string
	Target string
	File   bool
}

// Layout is a named set of plants.
type Layout struct {
	Name   string
	Plants []Plant
	// Refused is set when writes are refused (the write lock itself is
	// a link, or the state folder is): the error names the link.
	Refused string
}

// Layouts are the state-folder layouts every face is tested with.
var Layouts = []Layout{
	{Name: "displaced to the vault's top", Plants: []Plant{{Path: ".obsidian-mcp/displaced", Target: ".."}}},
	{Name: "displaced to a folder of notes", Plants: []Plant{{Path: ".obsidian-mcp/displaced", Target: "../Notes"}}},
	{Name: "displaced out of the vault", Plants: []Plant{{Path: ".obsidian-mcp/displaced", Target: "$OUT"}}},
	{Name: "a parking folder to the vault's top", Plants: []Plant{{Path: ".obsidian-mcp/displaced/DEADDEADDEAD", Target: "../.."}}},
	{Name: "a parking folder to a folder of notes", Plants: []Plant{{Path: ".obsidian-mcp/displaced/DEADDEADDEAD", Target: "../../Notes"}}},
	{Name: "a parking folder's lock to a note", Plants: []Plant{
		{Path: ".obsidian-mcp/displaced/DEADDEADDEAD/X7Q2MZ4KLA3B", File: true},
		{Path: ".obsidian-mcp/displaced/DEADDEADDEAD/lock", Target: "../../../Notes/a.md"}}},
	{Name: "journal to the vault's top", Plants: []Plant{{Path: ".obsidian-mcp/journal", Target: ".."}}},
	{Name: "journal to a folder of notes", Plants: []Plant{{Path: ".obsidian-mcp/journal", Target: "../Notes"}}},
	{Name: "journal out of the vault", Plants: []Plant{{Path: ".obsidian-mcp/journal", Target: "$OUT"}}},
	{Name: "index to the vault's top", Plants: []Plant{{Path: ".obsidian-mcp/index", Target: ".."}}},
	{Name: "index to a folder of notes", Plants: []Plant{{Path: ".obsidian-mcp/index", Target: "../Notes"}}},
	{Name: "displaced is a file", Plants: []Plant{{Path: ".obsidian-mcp/displaced", File: true}}},
	{Name: "the lock to a note", Plants: []Plant{{Path: ".obsidian-mcp/lock", Target: "../Notes/a.md"}}, Refused: ".obsidian-mcp/lock"},
	{Name: "the state folder to a folder of notes", Plants: []Plant{{Path: ".obsidian-mcp", Target: "Notes"}}, Refused: ".obsidian-mcp"},
}

// Notes is the vault every layout is planted in: notes at the top and in
// a folder, the app's folders, a git folder, and the dotfiles and logs
// that a journal's sweep once removed through a link.
var Notes = map[string]string{
	"top.md":             "# Top\n#proj\n",
	"Notes/a.md":         "# A\n#proj\n",
	"Notes/b.md":         "# B\n",
	"Notes/.mcpignore":   "Secret/\n",
	"Notes/run.log":      "log\n",
	".obsidian/app.json": "{}\n",
	".git/HEAD":          "ref: refs/heads/main\n",
	".mcpignore":         "Private/\n",
	"Private/p.md":       "private #proj\n",
}

// Outside is what the folder beside the vault holds.
var Outside = map[string]string{"keep.md": "outside\n", ".hidden": "x\n", "x.log": "x\n"}

// Make writes Notes into vault and Outside into out, and plants l.
func Make(vault, out string, l Layout) error {
	for _, set := range []struct {
		dir   string
		files map[string]string
	}{{vault, Notes}, {out, Outside}} {
		for p, c := range set.files {
			f := filepath.Join(set.dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
				return err
			}
		}
	}
	for _, p := range l.Plants {
		f := filepath.Join(vault, filepath.FromSlash(p.Path))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		switch {
		case p.Target != "":
			target := filepath.FromSlash(p.Target)
			if rest, ok := strings.CutPrefix(p.Target, "$OUT"); ok {
				target = out + filepath.FromSlash(rest)
			}
			if err := os.Symlink(target, f); err != nil {
				return err
			}
		case p.File:
			if err := os.WriteFile(f, []byte("planted\n"), 0o644); err != nil {
				return err
			}
		default:
			if err := os.MkdirAll(f, 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// Snapshot maps every file and link under dir, outside any real folder
// named StateDir, to a hash of its content (a link: of its target). Links
// are not followed.
func Snapshot(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Name() == StateDir && d.IsDir() && rel != "." {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link " + t
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			out[rel] = hex.EncodeToString(sum[:8])
		}
		return nil
	})
	return out, err
}

// Changed lists what differs between two snapshots, except the paths in
// except.
func Changed(before, after map[string]string, except ...string) []string {
	skip := map[string]bool{}
	for _, e := range except {
		skip[e] = true
	}
	var diff []string
	for p, h := range before {
		if skip[p] {
			continue
		}
		if a, ok := after[p]; !ok {
			diff = append(diff, p+" removed")
		} else if a != h {
			diff = append(diff, p+" changed")
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok && !skip[p] {
			diff = append(diff, p+" added")
		}
	}
	return diff
}
