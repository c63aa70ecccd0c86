package native_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/leasetest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// between is an Editor that lets another program write the note between
// the engine's read and its write: the first time change runs in an edit,
// before it returns, outside runs. That is the moment an edit is lost in
// servers that read, compute and then write blindly.
type between struct {
	*native.Engine
	outside func() (wait func() error)
}

func (b between) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	var wait func() error
	res, err := b.Engine.Edit(ctx, loc, ifMatch, func(cur []byte) ([]byte, error) {
		if wait == nil {
			wait = b.outside()
		}
		return change(cur)
	})
	if wait != nil {
		if werr := wait(); werr != nil {
			return res, werr
		}
	}
	return res, err
}

// writeOutside writes content to p as other programs do: in place like
// Obsidian (truncate and write), or to a new file renamed over it like a
// sync client. An in-place write may wait for the engine's lease on the
// note (leasetest.Save): wait blocks until it is done.
func writeOutside(t *testing.T, p, content string, inPlace bool) (wait func() error) {
	if inPlace {
		return leasetest.Save(p, []byte(content))
	}
	tmp := filepath.Join(filepath.Dir(p), ".sync-tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	return func() error { return nil }
}

// logVault is a vault holding Log.md with content; p is its file.
func logVault(t *testing.T, content string) (v *native.Engine, p string) {
	dir := t.TempDir()
	p = filepath.Join(dir, "Log.md")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := native.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, p
}

func patchTool(t *testing.T, v tools.Vault) func(args string) (map[string]any, error) {
	for _, st := range tools.All(v) {
		if st.Tool.Name == "obsidian_patch_note" {
			return func(args string) (map[string]any, error) {
				req := mcp.CallToolRequest{}
				req.Params.Name = st.Tool.Name
				req.Params.RawArguments = json.RawMessage(args)
				res, err := st.Handler(t.Context(), req)
				if err != nil {
					return nil, err
				}
				raw, _ := json.Marshal(res.StructuredContent)
				var out struct {
					Data map[string]any `json:"data"`
				}
				return out.Data, json.Unmarshal(raw, &out)
			}
		}
	}
	t.Fatal("no patch tool")
	return nil
}

// TestNoLostEdit: 1,000 times (200 outside the stress tier), another program changes the note between
// the engine's read and its write (in place and by rename, alternately),
// and the patch carries no if_match. Every one of its edits and every one
// of ours is in the note at the end, once, where it belongs.
func TestNoLostEdit(t *testing.T) {
	n := testenv.Rounds(200, 1000)
	v, p := logVault(t, "# Log\n## Ours\n## Theirs\n")
	i := 0
	ed := between{Engine: v, outside: func() func() error {
		// The other program appends its line at the end of the note.
		cur, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return writeOutside(t, p, string(cur)+fmt.Sprintf("theirs %d\n", i), i%2 == 0)
	}}
	patch := patchTool(t, tools.Vault{Notes: v, Edit: ed})
	for ; i < n; i++ {
		if _, err := patch(fmt.Sprintf(`{"path":"Log.md","heading":"Ours","operation":"append","content":"- ours %d"}`, i)); err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
	}
	got, _ := os.ReadFile(p)
	var want strings.Builder
	want.WriteString("# Log\n## Ours\n")
	for i := range n {
		fmt.Fprintf(&want, "- ours %d\n", i)
	}
	want.WriteString("## Theirs\n")
	for i := range n {
		fmt.Fprintf(&want, "theirs %d\n", i)
	}
	if string(got) != want.String() {
		lost := 0
		for i := range n {
			for _, line := range []string{fmt.Sprintf("ours %d\n", i), fmt.Sprintf("theirs %d\n", i)} {
				if strings.Count(string(got), line) != 1 {
					lost++
				}
			}
		}
		t.Fatalf("%d lines lost or doubled; the note is %d bytes, want %d", lost, len(got), want.Len())
	}
}

// TestIfMatchRefusesWhatChangedBetween: the same race with if_match from
// the read before it. Every edit is refused with the current etag, and
// the note is exactly what the other program wrote.
func TestIfMatchRefusesWhatChangedBetween(t *testing.T) {
	content := "# Log\n"
	v, p := logVault(t, content)
	i := 0
	ed := between{Engine: v, outside: func() func() error {
		content += fmt.Sprintf("theirs %d\n", i)
		return writeOutside(t, p, content, i%2 == 0)
	}}
	patch := patchTool(t, tools.Vault{Notes: v, Edit: ed})
	for ; i < 100; i++ {
		read := note.ETag([]byte(content))
		_, err := patch(fmt.Sprintf(`{"path":"Log.md","heading":"Log","operation":"append","content":"ours","if_match":%q}`, read))
		e := errors.From(err)
		if e == nil || e.Kind != errors.RevisionConflict || e.Data()["etag"] != note.ETag([]byte(content)) {
			t.Fatalf("edit %d: err = %v, want REVISION_CONFLICT with the current etag", i, err)
		}
	}
	if got, _ := os.ReadFile(p); string(got) != content {
		t.Errorf("note = %q, want the other program's %q", got, content)
	}
}
