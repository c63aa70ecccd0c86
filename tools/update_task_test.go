package tools

import (
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// TestUpdateTask runs the tool on a fake that keeps what is written.
func TestUpdateTask(t *testing.T) {
	t.Parallel()
	today := time.Now().Format(time.DateOnly)
	const list = "# Todo\n- [ ] call ^c\n- [x] paid ✅ 2026-11-01\n"
	cases := []struct {
		name, args, want string
		kind             errors.Kind
		fields           []string
	}{
		{name: "complete by line and text", args: `{"path":"T.md","operation":"complete","line":2,"text":"call"}`, want: "# Todo\n- [x] call ✅ " + today + " ^c\n- [x] paid ✅ 2026-11-01\n"},
		{name: "toggle by block", args: `{"path":"T.md","operation":"toggle","block":"c"}`, want: "# Todo\n- [x] call ✅ " + today + " ^c\n- [x] paid ✅ 2026-11-01\n"},
		{name: "uncomplete", args: `{"path":"T.md","operation":"uncomplete","line":3,"text":"paid"}`, want: "# Todo\n- [ ] call ^c\n- [ ] paid\n"},
		{name: "not a task", args: `{"path":"T.md","operation":"toggle","line":1,"text":"call"}`, kind: errors.TaskNotFound},
		// An outside edit put another task on the line listed.
		{name: "the line holds another task now", args: `{"path":"T.md","operation":"complete","line":2,"text":"buy milk"}`, kind: errors.RevisionConflict},
		{name: "a line alone", args: `{"path":"T.md","operation":"complete","line":2}`, kind: errors.InvalidParams, fields: []string{"line"}},
		{name: "neither line nor block", args: `{"path":"T.md","operation":"toggle"}`, kind: errors.InvalidParams, fields: []string{"line", "block"}},
		{name: "both", args: `{"path":"T.md","operation":"toggle","line":2,"block":"c"}`, kind: errors.InvalidParams, fields: []string{"line", "block"}},
		{name: "bad operation", args: `{"path":"T.md","operation":"done","line":2}`, kind: errors.InvalidParams, fields: []string{"operation"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{content: list}
			_, err := call(t, findTool(t, "obsidian_update_task", fb), c.args)
			if c.kind != "" {
				checkErr(t, err, c.kind, c.fields, "")
				if fb.content != list {
					t.Errorf("a refused update wrote %q", fb.content)
				}
				return
			}
			if err != nil || fb.content != c.want {
				t.Errorf("%v\n got %q\nwant %q", err, fb.content, c.want)
			}
		})
	}
}
