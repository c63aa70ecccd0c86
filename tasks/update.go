package tasks

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// The changes Update makes to a task.
const (
	Complete   = "complete"
	Uncomplete = "uncomplete"
	Toggle     = "toggle"
)

var (
	checkbox = regexp.MustCompile(`^(\s*(?:[-*+]|\d{1,9}[.)])\s+\[)(.)(\])`)
	doneDate = regexp.MustCompile(` *(?:✅\x{FE0F}? *\d{4}-\d{2}-\d{2}|[\[(]completion:: *[^\])]*[\])])`)
	trailing = regexp.MustCompile(`(\s+\^[A-Za-z0-9-]+)?(\s*)$`)
)

// Update returns content with one task changed, as the Tasks plugin
// changes it: completed, its box ticked and "✅ <today>" added (before its
// block id); uncompleted, its box emptied and its done date removed;
// toggled, whichever it is not. The task is the one at line, or the one
// with block id block. A recurring task is refused: its next occurrence is
// not written yet. Every other byte stays.
func Update(content []byte, line int, block, op string, today time.Time) ([]byte, error) {
	var target *Task
	for _, t := range Parse("", content) {
		if line > 0 && t.Line == line || block != "" && t.BlockID == strings.TrimPrefix(block, "^") {
			target = &t
			break
		}
	}
	if target == nil {
		where := "at line " + strconv.Itoa(line)
		if block != "" {
			where = "with block id ^" + strings.TrimPrefix(block, "^")
		}
		return nil, errors.E(errors.FileNotFound, "no task %s in the note; nothing was changed", where).
			WithHint("List the note's tasks with obsidian_list_tasks (folder or text) to find the line, or read the note.")
	}
	if op == Toggle {
		op = Complete
		if target.Status == "done" {
			op = Uncomplete
		}
	}
	if op == Complete && target.Status == "done" || op == Uncomplete && target.Status == "todo" {
		return content, nil
	}
	if op == Complete && target.Recurrence != "" {
		return nil, errors.E(errors.Unsupported, "the task at line %d recurs (%s); completing it here would not write its next occurrence", target.Line, target.Recurrence).
			WithHint("Complete recurring tasks in Obsidian for now, where the Tasks plugin adds the next one.")
	}
	lines := bytes.SplitAfter(content, []byte{'\n'})
	raw := lines[target.Line-1]
	body := bytes.TrimRight(raw, "\r\n")
	end := raw[len(body):]
	s := string(body)
	if op == Complete {
		s = checkbox.ReplaceAllString(s, "${1}x${3}")
		m := trailing.FindStringSubmatchIndex(s)
		blockID := ""
		if m[2] >= 0 {
			blockID = s[m[2]:m[3]]
		}
		s = strings.TrimRight(s[:m[0]], " \t") + " ✅ " + today.Format(time.DateOnly) + blockID + s[m[4]:m[5]]
	} else {
		s = checkbox.ReplaceAllString(s, "${1} ${3}")
		s = doneDate.ReplaceAllString(s, "")
	}
	lines[target.Line-1] = append([]byte(s), end...)
	return bytes.Join(lines, nil), nil
}
