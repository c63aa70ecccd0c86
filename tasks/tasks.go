// Package tasks reads the checklist items of a note the way the Tasks
// plugin does: "- [ ] text", with its fields in the plugin's emoji format
// (📅 due, ⏳ scheduled, 🛫 start, ➕ created, ✅ done, ❌ cancelled, 🔁
// recurrence, 🔺⏫🔼🔽⏬ priority) or Dataview's ([due:: 2026-05-01]).
// Items in fenced code and in the frontmatter are not tasks.
//
// It does no I/O.
package tasks

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Task is one checklist item of a note.
type Task struct {
	Path       string   `json:"path" jsonschema:"vault-relative path of the note"`
	Line       int      `json:"line" jsonschema:"1-based line of the task"`
	Status     string   `json:"status" jsonschema:"todo, done, in_progress, cancelled, or the character between the brackets"`
	Text       string   `json:"text" jsonschema:"the description, without its fields"`
	Due        string   `json:"due,omitempty" jsonschema:"YYYY-MM-DD"`
	Scheduled  string   `json:"scheduled,omitempty" jsonschema:"YYYY-MM-DD"`
	Start      string   `json:"start,omitempty" jsonschema:"YYYY-MM-DD"`
	Created    string   `json:"created,omitempty" jsonschema:"YYYY-MM-DD"`
	Done       string   `json:"done,omitempty" jsonschema:"YYYY-MM-DD"`
	Cancelled  string   `json:"cancelled,omitempty" jsonschema:"YYYY-MM-DD"`
	Priority   string   `json:"priority,omitempty" jsonschema:"highest, high, medium, low or lowest"`
	Recurrence string   `json:"recurrence,omitempty" jsonschema:"as written, e.g. every week"`
	Tags       []string `json:"tags,omitempty" jsonschema:"its #tags, without #"`
	BlockID    string   `json:"block_id,omitempty" jsonschema:"its ^id, without ^"`
	// ETag is the note's when its tasks were read, so that an update by
	// line can be refused once the note has changed.
	ETag string `json:"etag,omitempty" jsonschema:"the note's etag when it was listed: pass it as if_match to obsidian_update_task"`
}

var (
	item      = compiled(`^\s*(?:[-*+]|\d{1,9}[.)])\s+\[(.)\](?:\s+(.*))?$`)
	emojiDate = compiled(`\s*(📅|⏳|🛫|➕|✅|❌)\x{FE0F}?\s*(\d{4}-\d{2}-\d{2})`)
	recurs    = compiled(`\s*🔁\x{FE0F}?\s*([^📅⏳🛫➕✅❌🔺⏫🔼🔽⏬^#]*[^\s📅⏳🛫➕✅❌🔺⏫🔼🔽⏬^#])`)
	priority  = compiled(`\s*(🔺|⏫|🔼|🔽|⏬)\x{FE0F}?`)
	dataview  = compiled(`\s*[\[(](due|scheduled|start|created|completion|cancelled|repeat|priority)::\s*([^\])]*)[\])]`)
	blockID   = compiled(`\s+\^([A-Za-z0-9-]+)\s*$`)
	tag       = compiled(`(?:^|\s)#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)`)
)

// compiled is expr, compiled the first time it is used: the package's
// patterns cost a start of the server half a millisecond when compiled at
// init (GODEBUG=inittrace=1), though most runs never read a task.
func compiled(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var priorities = map[string]string{"🔺": "highest", "⏫": "high", "🔼": "medium", "🔽": "low", "⏬": "lowest"}

// Parse returns the tasks of a note's content, in order; path is copied
// into each.
func Parse(path string, content []byte) []Task {
	var out []Task
	fm := note.FrontmatterEnd(content)
	line := bytes.Count(content[:fm], []byte{'\n'})
	var fence string // the open fence's marker, when inside one
	for _, raw := range bytes.Split(content[fm:], []byte{'\n'}) {
		line++
		s := strings.TrimSuffix(string(raw), "\r")
		t := strings.TrimLeft(s, " \t")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		m := item().FindStringSubmatch(s)
		if m == nil {
			continue
		}
		out = append(out, parseItem(path, line, m[1], m[2]))
	}
	return out
}

func parseItem(path string, line int, status, text string) Task {
	t := Task{Path: path, Line: line, Status: statusName(status)}
	if m := blockID().FindStringSubmatchIndex(text); m != nil {
		t.BlockID = text[m[2]:m[3]]
		text = text[:m[0]]
	}
	for _, m := range emojiDate().FindAllStringSubmatch(text, -1) {
		*dateField(&t, m[1]) = m[2]
	}
	text = emojiDate().ReplaceAllString(text, "")
	if m := recurs().FindStringSubmatch(text); m != nil {
		t.Recurrence = strings.TrimSpace(m[1])
		text = recurs().ReplaceAllString(text, "")
	}
	if m := priority().FindStringSubmatch(text); m != nil {
		t.Priority = priorities[m[1]]
		text = priority().ReplaceAllString(text, "")
	}
	for _, m := range dataview().FindAllStringSubmatch(text, -1) {
		v := strings.TrimSpace(m[2])
		switch m[1] {
		case "repeat":
			t.Recurrence = v
		case "priority":
			t.Priority = v
		case "completion":
			t.Done = v
		default:
			*dateField(&t, m[1]) = v
		}
	}
	text = dataview().ReplaceAllString(text, "")
	for _, m := range tag().FindAllStringSubmatch(text, -1) {
		t.Tags = append(t.Tags, m[1])
	}
	t.Text = strings.Join(strings.Fields(text), " ")
	return t
}

func dateField(t *Task, key string) *string {
	switch key {
	case "📅", "due":
		return &t.Due
	case "⏳", "scheduled":
		return &t.Scheduled
	case "🛫", "start":
		return &t.Start
	case "➕", "created":
		return &t.Created
	case "✅":
		return &t.Done
	default: // ❌, cancelled
		return &t.Cancelled
	}
}

func statusName(c string) string {
	switch c {
	case " ":
		return "todo"
	case "x", "X":
		return "done"
	case "/":
		return "in_progress"
	case "-":
		return "cancelled"
	}
	return c
}

// Query selects tasks. Status is a status name or "any" ("" is todo);
// dates are YYYY-MM-DD and inclusive; Tag matches nested tags too; Text is
// matched without case in the description.
type Query struct {
	Status, DueBefore, DueAfter, Tag, Folder, Text string
}

// Match reports whether t is selected.
func (q Query) Match(t Task) bool {
	status := q.Status
	if status == "" {
		status = "todo"
	}
	if status != "any" && t.Status != status {
		return false
	}
	if (q.DueBefore != "" || q.DueAfter != "") && t.Due == "" {
		return false
	}
	if q.DueBefore != "" && t.Due > q.DueBefore || q.DueAfter != "" && t.Due < q.DueAfter {
		return false
	}
	if f := strings.Trim(q.Folder, "/"); f != "" && !strings.HasPrefix(t.Path, f+"/") {
		return false
	}
	if q.Text != "" && !strings.Contains(strings.ToLower(t.Text), strings.ToLower(q.Text)) {
		return false
	}
	if want := strings.ToLower(strings.TrimPrefix(q.Tag, "#")); want != "" {
		found := false
		for _, tg := range t.Tags {
			tg = strings.ToLower(tg)
			found = found || tg == want || strings.HasPrefix(tg, want+"/")
		}
		return found
	}
	return true
}

// Less orders tasks as a to-do list reads: by due date (undated last),
// then by note and line.
func Less(a, b Task) bool {
	switch {
	case a.Due != b.Due && (a.Due == "" || b.Due == ""):
		return b.Due == ""
	case a.Due != b.Due:
		return a.Due < b.Due
	case a.Path != b.Path:
		return a.Path < b.Path
	}
	return a.Line < b.Line
}
