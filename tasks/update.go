package tasks

import (
	"bytes"
	"fmt"
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
	checkbox = compiled(`^(\s*(?:[-*+]|\d{1,9}[.)])\s+\[)(.)(\])`)
	trailing = compiled(`(\s+\^[A-Za-z0-9-]+)?(\s*)$`)
	// A next occurrence has no id and depends on nothing (the plugin
	// drops both so that the series does not block itself).
	dependency = compiled(` *(?:(?:🆔|⛔)\x{FE0F}? *[A-Za-z0-9_-]+(?: *, *[A-Za-z0-9_-]+)*|[\[(](?:id|dependsOn):: *[^\])]*[\])])`)
	dateAt     = compiled(` *(?:🛫|⏳|📅|[\[(](?:start|scheduled|due)::)`)
)

// The date fields, each in both formats: its emoji or its Dataview key.
var (
	dueField       = fieldPattern(`📅`, "due")
	scheduledField = fieldPattern(`⏳`, "scheduled")
	startField     = fieldPattern(`🛫`, "start")
	createdField   = fieldPattern(`➕`, "created")
	doneField      = fieldPattern(`✅`, "completion")
	cancelledField = fieldPattern(`❌`, "cancelled")
)

func fieldPattern(emoji, key string) func() *regexp.Regexp {
	return compiled(` *(?:` + emoji + `\x{FE0F}? *(\d{4}-\d{2}-\d{2})|[\[(]` + key + `:: *([^\])]*?) *[\])])`)
}

// setField gives every instance of a date field the value, or removes
// them when value is "". The rest of the line stays as written.
func setField(s string, field func() *regexp.Regexp, value string) string {
	ms := field().FindAllStringSubmatchIndex(s, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if value == "" {
			s = s[:m[0]] + s[m[1]:]
			continue
		}
		g := 2
		if m[2] < 0 {
			g = 4
		}
		s = s[:m[g]] + value + s[m[g+1]:]
	}
	return s
}

// Target is the task an update is for: at Line or with Block (its ^id);
// Text, when set, is the task's text as it was listed, which the line
// must still hold.
type Target struct {
	Line  int
	Block string
	Text  string
}

// Update returns content with one task changed, as the Tasks plugin
// (with settings set) changes it: completed, its box ticked and
// "✅ <today>" added (before its block id); uncompleted, its box emptied
// and its done date removed; toggled, whichever it is not. Completing a
// recurring task also writes its next occurrence (NextOccurrence) on the
// line above, or below with RecurrenceOnNextLine. The task is at's (see
// Target). Every other byte stays.
func Update(content []byte, at Target, op string, today time.Time, set Settings) ([]byte, error) {
	line, block := at.Line, at.Block
	var target *Task
	all := Parse("", content)
	for _, t := range all {
		if line > 0 && t.Line == line || block != "" && t.BlockID == strings.TrimPrefix(block, "^") {
			target = &t
			break
		}
	}
	if target != nil && at.Text != "" && target.Text != at.Text {
		return nil, errors.E(errors.RevisionConflict, "line %d now holds the task %q, not %q: the note changed since its tasks were listed; nothing was changed", target.Line, target.Text, at.Text).
			WithHint("List the tasks again (obsidian_list_tasks) and use the line it gives now, or the task's block id.")
	}
	if target == nil {
		where := "at line " + strconv.Itoa(line)
		if block != "" {
			where = "with block id ^" + strings.TrimPrefix(block, "^")
		}
		lines := make([]int, 0, min(len(all), 200))
		for _, t := range all[:min(len(all), 200)] {
			lines = append(lines, t.Line)
		}
		e := errors.E(errors.TaskNotFound, "no task %s in the note; nothing was changed", where).
			WithHint("List the note's tasks with obsidian_list_tasks (folder or text) to find the line, or read the note.").
			With("tasks", lines)
		if block != "" {
			return nil, e.With("block", strings.TrimPrefix(block, "^"))
		}
		return nil, e.With("line", line)
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
	lines := bytes.SplitAfter(content, []byte{'\n'})
	raw := lines[target.Line-1]
	body := bytes.TrimRight(raw, "\r\n")
	end := string(raw[len(body):])
	s := string(body)
	if op == Uncomplete {
		s = checkbox().ReplaceAllString(s, "${1} ${3}")
		lines[target.Line-1] = []byte(setField(s, doneField, "") + end)
		return bytes.Join(lines, nil), nil
	}
	done := checkbox().ReplaceAllString(s, "${1}x${3}")
	if set.SetDoneDate {
		m := trailing().FindStringSubmatchIndex(done)
		blockID := ""
		if m[2] >= 0 {
			blockID = done[m[2]:m[3]]
		}
		done = strings.TrimRight(done[:m[0]], " \t") + " " + dated(s, "✅", "completion", today) + blockID + done[m[4]:m[5]]
	}
	if target.Recurrence == "" {
		lines[target.Line-1] = []byte(done + end)
		return bytes.Join(lines, nil), nil
	}
	next, err := NextOccurrence(s, *target, today, set)
	if err != nil {
		return nil, errors.E(errors.Unsupported, "the task at line %d recurs %q, but %v; nothing was changed", target.Line, target.Recurrence, err).
			WithHint("Write the rule as the Tasks plugin documents it (every 3 days, every week on Monday, every month on the last, every January on the 15th, every 2 weeks when done) with a valid 📅/⏳/🛫 date, then complete the task again.")
	}
	nl := end
	if nl == "" {
		nl = "\n"
		if bytes.Contains(content, []byte("\r\n")) {
			nl = "\r\n"
		}
	}
	first, second := next, done
	if set.RecurrenceOnNextLine {
		first, second = done, next
	}
	lines[target.Line-1] = []byte(first + nl + second + end)
	return bytes.Join(lines, nil), nil
}

// NextOccurrence is the line of a recurring task's next occurrence, as
// the Tasks plugin writes it when t (read from line) is completed on
// today: the same line, unticked, with its reference date (due, else
// scheduled, else start) moved to the rule's next date and its other
// dates kept as far from it as they were; without its done, cancelled
// and created dates (➕ today with SetCreatedDate), its block id, id and
// dependencies. A task without dates recurs without dates.
func NextOccurrence(line string, t Task, today time.Time, set Settings) (string, error) {
	rule, err := ParseRule(t.Recurrence)
	if err != nil {
		return "", fmt.Errorf("that is not a rule the Tasks plugin reads: %v", err)
	}
	s := checkbox().ReplaceAllString(line, "${1} ${3}")
	dates := []struct {
		field func() *regexp.Regexp
		value string
		name  string
	}{{dueField, t.Due, "due"}, {scheduledField, t.Scheduled, "scheduled"}, {startField, t.Start, "start"}}
	var ref, next time.Time
	for _, d := range dates {
		if d.value == "" {
			continue
		}
		v, err := time.Parse(time.DateOnly, d.value)
		if err != nil {
			return "", fmt.Errorf("its %s date %q is not a date", d.name, d.value)
		}
		if ref.IsZero() {
			ref = v
			if next, err = rule.NextDate(ref, today); err != nil {
				return "", err
			}
		}
		s = setField(s, d.field, next.AddDate(0, 0, daysBetween(ref, v)).Format(time.DateOnly))
	}
	if set.RemoveScheduledDateOnRecurrence {
		s = setField(s, scheduledField, "")
	}
	s = setField(setField(s, doneField, ""), cancelledField, "")
	s = dependency().ReplaceAllString(s, "")
	s = blockID().ReplaceAllString(s, "")
	s = setField(s, createdField, "")
	if set.SetCreatedDate {
		created := " " + dated(s, "➕", "created", today)
		if m := dateAt().FindStringIndex(s); m != nil {
			s = s[:m[0]] + created + s[m[0]:]
		} else {
			s = strings.TrimRight(s, " \t") + created
		}
	}
	return s, nil
}

// dated is a date field as the task's line writes its fields: in the
// Dataview format when it has a Dataview field, else with its emoji.
func dated(line, emoji, key string, date time.Time) string {
	if dataview().MatchString(line) {
		return "[" + key + ":: " + date.Format(time.DateOnly) + "]"
	}
	return emoji + " " + date.Format(time.DateOnly)
}
