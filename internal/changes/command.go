package changes

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// usage is `obsidian-mcp history --help`.
const usage = `obsidian-mcp history: what the tools changed in a vault, from its change record.

Usage:
  obsidian-mcp history [list] [flags]      the changes, newest first
  obsidian-mcp history show ID [flags]     one change, with a diff of each note
  obsidian-mcp history undo ID [flags]     revert that change (an undo is a change too:
                                           undo it to redo); --dry-run says what it would do

Flags:
  --vault-path DIR     the vault folder (OBSIDIAN_VAULT_PATH)
  --changes-dir DIR    where the record is kept (OBSIDIAN_MCP_CHANGES_DIR; default
                       obsidian-mcp/changes in your state folder)
  --path NOTE, --folder DIR, --tool NAME, --client NAME
                       only the changes to that note or folder, by that tool or client
  --since T, --until T only the changes from or until T (RFC 3339, or a day YYYY-MM-DD)
  --limit N            how many to list (default 50)
  --dry-run            undo: change nothing, say what would be done
`

// Streams are a command's standard streams.
type Streams struct {
	Out, Err io.Writer
}

// An UndoFunc undoes changes of the record of the vault at vault (base
// is the records' folder), as the server's obsidian_undo does.
type UndoFunc func(base, vault string, req note.UndoRequest) (note.Undone, error)

// Command is `obsidian-mcp history`. list and show read the record; undo
// reverts a change with undo. It returns the exit status: 0 done, 1
// failed, 2 bad usage.
func Command(args []string, getenv func(string) string, std Streams, undo UndoFunc) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vault := fs.String("vault-path", getenv("OBSIDIAN_VAULT_PATH"), "")
	dir := fs.String("changes-dir", getenv("OBSIDIAN_MCP_CHANGES_DIR"), "")
	var f Filter
	fs.StringVar(&f.Path, "path", "", "")
	fs.StringVar(&f.Folder, "folder", "", "")
	fs.StringVar(&f.Tool, "tool", "", "")
	fs.StringVar(&f.Client, "client", "", "")
	since := fs.String("since", "", "")
	until := fs.String("until", "", "")
	fs.IntVar(&f.Limit, "limit", 50, "")
	dryRun := fs.Bool("dry-run", false, "")
	var words []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(std.Out, usage)
				return 0
			}
			return bad(std.Err, err.Error())
		}
		args = fs.Args()
		if len(args) > 0 {
			words, args = append(words, args[0]), args[1:]
		}
	}
	var err error
	if f.Since, err = note.TimeArg(*since, false); err != nil {
		return bad(std.Err, "--since "+err.Error())
	}
	if f.Until, err = note.TimeArg(*until, true); err != nil {
		return bad(std.Err, "--until "+err.Error())
	}
	switch {
	case *vault == "":
		return bad(std.Err, "no vault: give its folder with --vault-path (or OBSIDIAN_VAULT_PATH)")
	case strings.EqualFold(*dir, "off"):
		return bad(std.Err, "--changes-dir is off: no change record is kept")
	case len(words) > 2, len(words) == 2 && words[0] != "show" && words[0] != "undo", len(words) == 1 && words[0] != "list":
		return bad(std.Err, fmt.Sprintf("unknown words %q", words))
	}
	base := *dir
	if base == "" {
		if base, err = DefaultBase(); err != nil {
			fmt.Fprintf(std.Err, "obsidian-mcp history: no state folder: %v\n", err)
			return 1
		}
	}
	root, err := os.OpenRoot(*vault)
	if err != nil {
		fmt.Fprintf(std.Err, "obsidian-mcp history: the vault folder: %v\n", err)
		return 1
	}
	defer root.Close()
	// No bounds: reading the record forgets nothing a server keeps.
	r, err := Open(base, *vault, root, Limits{})
	if err != nil {
		fmt.Fprintf(std.Err, "obsidian-mcp history: %v\n", err)
		return 1
	}
	defer r.Close()
	if len(words) == 2 && words[0] == "undo" {
		return undoOne(undo, base, *vault, note.UndoRequest{ID: words[1], DryRun: *dryRun}, std)
	}
	if len(words) == 2 {
		return show(r, root, words[1], std)
	}
	return list(r, f, std)
}

func bad(w io.Writer, msg string) int {
	fmt.Fprintf(w, "obsidian-mcp history: %s\nobsidian-mcp history: see `obsidian-mcp history --help`\n", msg)
	return 2
}

func list(r *Record, f Filter, std Streams) int {
	l, err := r.List(f)
	if err != nil {
		fmt.Fprintf(std.Err, "obsidian-mcp history: %v\n", err)
		return 1
	}
	if len(l.Changes) == 0 {
		fmt.Fprintln(std.Out, "No change is recorded that matches.")
	} else {
		tw := tabwriter.NewWriter(std.Out, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "WHEN\tID\tTOOL\tCLIENT\tFILES")
		for _, c := range l.Changes {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Time.Local().Format(time.DateTime), c.ID, c.Tool, c.Client, files(c))
		}
		_ = tw.Flush()
	}
	if l.More != "" {
		fmt.Fprintf(std.Out, "More: older changes follow (--limit, or --until %s).\n", l.Changes[len(l.Changes)-1].Time.Format(time.RFC3339Nano))
	}
	if l.Damaged > 0 {
		fmt.Fprintf(std.Err, "obsidian-mcp history: %d entries of the record are damaged and were skipped (%s)\n", l.Damaged, filepath.Join(r.Dir(), "changes"))
	}
	return 0
}

// files names a change's files, the first three and how many more.
func files(c note.VaultChange) string {
	paths := c.Paths()
	if len(paths) > 3 {
		return strings.Join(paths[:3], ", ") + fmt.Sprintf(" and %d more", len(paths)-3)
	}
	return strings.Join(paths, ", ")
}

func show(r *Record, root *os.Root, id string, std Streams) int {
	c, err := r.Get(id, nil)
	if err != nil {
		fmt.Fprintf(std.Err, "obsidian-mcp history: %v\n", err)
		return 1
	}
	d := r.Detail(c, func(p string) ([]byte, bool) {
		data, err := root.ReadFile(p)
		return data, err == nil
	})
	fmt.Fprintf(std.Out, "%s  %s  by %s", c.Time.Local().Format(time.DateTime), c.Tool, orUnknown(c.Client))
	fmt.Fprintf(std.Out, "  (%s)\n", c.ID)
	for _, p := range c.Parts {
		switch {
		case p.To != "":
			fmt.Fprintf(std.Out, "  %s %s -> %s\n", p.Op, p.Path, p.To)
		case p.Trash != "":
			fmt.Fprintf(std.Out, "  %s %s (to %s)\n", p.Op, p.Path, p.Trash)
		default:
			fmt.Fprintf(std.Out, "  %s %s\n", p.Op, p.Path)
		}
	}
	for _, df := range d.Diffs {
		fmt.Fprintln(std.Out)
		if df.Diff == "" {
			fmt.Fprintf(std.Out, "%s: %s\n", df.Path, df.Note)
			continue
		}
		fmt.Fprint(std.Out, df.Diff)
	}
	return 0
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown client"
	}
	return s
}

// undoOne undoes one change and says what was done, or why not.
func undoOne(undo UndoFunc, base, vault string, req note.UndoRequest, std Streams) int {
	done, err := undo(base, vault, req)
	if err != nil {
		fmt.Fprintf(std.Err, "obsidian-mcp history: %v\n", err)
		var detail interface{ Data() map[string]any }
		if errors.As(err, &detail) {
			if cs, ok := detail.Data()["conflicts"].([]note.UndoConflict); ok {
				for _, c := range cs {
					fmt.Fprintf(std.Err, "\n%s: %s\n%s", c.Path, c.Reason, c.Diff)
				}
			}
		}
		return 1
	}
	verb := "Undone"
	if done.DryRun {
		verb = "Would undo"
	}
	fmt.Fprintf(std.Out, "%s %s:\n", verb, strings.Join(done.Undone, ", "))
	for _, s := range done.Steps {
		line := "  " + s.Op + " " + s.Path
		if s.From != "" {
			line += " (from " + s.From + ")"
		}
		if s.Merged {
			line += " (changed since: only this change's lines reversed)"
		}
		if s.Note != "" {
			line += " (" + s.Note + ")"
		}
		fmt.Fprintln(std.Out, line)
	}
	if done.Change != "" {
		fmt.Fprintf(std.Out, "Recorded as %s: `obsidian-mcp history undo %s` redoes it.\n", done.Change, done.Change)
	}
	return 0
}
