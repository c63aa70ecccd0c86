package changes

import (
	"github.com/aymanbagabas/go-udiff"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Detail is c with a unified diff of each part that changed a file's
// text, from the bytes the record keeps before and after; the file's
// now (current) stands in for bytes after the record no longer has
// (removed by hand) when it still has them.
func (r *Record) Detail(c note.VaultChange, current func(path string) ([]byte, bool)) note.ChangeDetail {
	d := note.ChangeDetail{VaultChange: c, Diffs: []note.PartDiff{}}
	for _, p := range c.Parts {
		if p.Op != note.PartEdit && p.Op != note.PartCreate && p.Op != note.PartDelete {
			continue
		}
		var before, after []byte
		var err error
		if p.Before != "" {
			if before, err = r.Blob(p.Before); err != nil {
				d.Diffs = append(d.Diffs, note.PartDiff{Path: p.Path, Note: err.Error()})
				continue
			}
		}
		if p.After != "" {
			if after, err = r.Blob(p.After); err != nil {
				now, ok := current(p.Path)
				if !ok || Hash(now) != p.After {
					d.Diffs = append(d.Diffs, note.PartDiff{Path: p.Path, Note: "the note has changed since, and the record does not keep its bytes after this change"})
					continue
				}
				after = now
			}
		}
		from, to := "a/"+p.Path, "b/"+p.Path
		switch p.Op {
		case note.PartCreate:
			from = "/dev/null"
		case note.PartDelete:
			to = "/dev/null"
		}
		d.Diffs = append(d.Diffs, note.PartDiff{Path: p.Path, Diff: udiff.Unified(from, to, string(before), string(after))})
	}
	return d
}
