package tasks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestUpdate(t *testing.T) {
	today := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	const note = "# Todo\r\n- [ ] Call 📅 2026-12-01 ^call\r\n- [x] Paid ✅ 2026-11-01\r\n- [ ] Water 🔁 every day\r\n  - [/] Draft  \r\n"
	cases := []struct {
		name, op, block string
		line            int
		want            string
		kind            errors.Kind
	}{
		{name: "complete keeps the block id last", op: Complete, line: 2,
			want: "# Todo\r\n- [x] Call 📅 2026-12-01 ✅ 2026-11-25 ^call\r\n- [x] Paid ✅ 2026-11-01\r\n- [ ] Water 🔁 every day\r\n  - [/] Draft  \r\n"},
		{name: "by block id", op: Toggle, block: "^call",
			want: "# Todo\r\n- [x] Call 📅 2026-12-01 ✅ 2026-11-25 ^call\r\n- [x] Paid ✅ 2026-11-01\r\n- [ ] Water 🔁 every day\r\n  - [/] Draft  \r\n"},
		{name: "uncomplete drops the done date", op: Uncomplete, line: 3,
			want: "# Todo\r\n- [ ] Call 📅 2026-12-01 ^call\r\n- [ ] Paid\r\n- [ ] Water 🔁 every day\r\n  - [/] Draft  \r\n"},
		{name: "toggle a done task", op: Toggle, line: 3,
			want: "# Todo\r\n- [ ] Call 📅 2026-12-01 ^call\r\n- [ ] Paid\r\n- [ ] Water 🔁 every day\r\n  - [/] Draft  \r\n"},
		{name: "an in-progress task is completed, trailing spaces kept", op: Toggle, line: 5,
			want: "# Todo\r\n- [ ] Call 📅 2026-12-01 ^call\r\n- [x] Paid ✅ 2026-11-01\r\n- [ ] Water 🔁 every day\r\n  - [x] Draft ✅ 2026-11-25  \r\n"},
		{name: "completing a done task changes nothing", op: Complete, line: 3, want: note},
		{name: "a recurring task without dates recurs without dates, above", op: Complete, line: 4,
			want: "# Todo\r\n- [ ] Call 📅 2026-12-01 ^call\r\n- [x] Paid ✅ 2026-11-01\r\n- [ ] Water 🔁 every day\r\n- [x] Water 🔁 every day ✅ 2026-11-25\r\n  - [/] Draft  \r\n"},
		{name: "no task at the line", op: Complete, line: 1, kind: errors.TaskNotFound},
		{name: "no such block", op: Complete, block: "nope", kind: errors.TaskNotFound},
	}
	for _, c := range cases {
		got, err := Update([]byte(note), Target{Line: c.line, Block: c.block}, c.op, today, DefaultSettings())
		if c.kind != "" {
			if errors.From(err) == nil || errors.From(err).Kind != c.kind {
				t.Errorf("%s: %v, want %s", c.name, err, c.kind)
			} else if data := errors.From(err).Data(); fmt.Sprint(data["tasks"]) != "[2 3 4 5]" ||
				c.line > 0 && data["line"] != c.line || c.block != "" && data["block"] != c.block {
				// What the note has, to choose from, and what was asked.
				t.Errorf("%s: data %v", c.name, data)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %v\n got %q\nwant %q", c.name, err, got, c.want)
		}
	}
}

// Completing a recurring task, against the Tasks plugin's documented
// examples and its settings.
func TestUpdateRecurring(t *testing.T) {
	defaults := DefaultSettings()
	below, created, noDone, unscheduled := defaults, defaults, defaults, defaults
	below.RecurrenceOnNextLine = true
	created.SetCreatedDate = true
	noDone.SetDoneDate = false
	unscheduled.RemoveScheduledDateOnRecurrence = true
	cases := []struct {
		name, note, today string
		set               Settings
		want              string
		kind              errors.Kind
	}{
		{name: "the documented example", today: "2021-04-24", set: defaults,
			note: "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25\n",
			want: "- [ ] take out the trash 🔁 every Sunday 📅 2021-05-02\n- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2021-04-24\n"},
		{name: "with created dates", today: "2023-03-10", set: created,
			note: "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25",
			want: "- [ ] take out the trash 🔁 every Sunday ➕ 2023-03-10 📅 2021-05-02\n- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2023-03-10"},
		{name: "other dates keep their distance to the due date", today: "2021-10-29", set: defaults,
			note: "-   [ ] Mow the lawn 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30\n",
			want: "-   [ ] Mow the lawn 🔁 every 2 weeks ⏳ 2021-11-11 📅 2021-11-13\n-   [x] Mow the lawn 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30 ✅ 2021-10-29\n"},
		{name: "when done counts from today", today: "2022-02-13", set: defaults,
			note: "- [ ] sweep the floors 🔁 every week when done ⏳ 2021-02-06\n",
			want: "- [ ] sweep the floors 🔁 every week when done ⏳ 2022-02-20\n- [x] sweep the floors 🔁 every week when done ⏳ 2021-02-06 ✅ 2022-02-13\n"},
		{name: "below, on the note's last line, with CRLF", today: "2026-11-26", set: below,
			note: "# a\r\n  - [ ] pay 🔁 every month 📅 2026-01-31 ➕ 2025-12-01 ^rent",
			want: "# a\r\n  - [x] pay 🔁 every month 📅 2026-01-31 ➕ 2025-12-01 ✅ 2026-11-26 ^rent\r\n  - [ ] pay 🔁 every month 📅 2026-02-28"},
		{name: "no id, dependencies or block id; Dataview fields stay Dataview", today: "2026-11-26", set: created,
			note: "- [/] Water [start:: 2026-11-27] [due:: 2026-11-28] [repeat:: every 3 days] 🆔 abc ⛔ x1,y2 ^w\n",
			want: "- [ ] Water [created:: 2026-11-26] [start:: 2026-11-30] [due:: 2026-12-01] [repeat:: every 3 days]\n- [x] Water [start:: 2026-11-27] [due:: 2026-11-28] [repeat:: every 3 days] 🆔 abc ⛔ x1,y2 [completion:: 2026-11-26] ^w\n"},
		{name: "a cancelled date is not carried", today: "2026-11-26", set: noDone,
			note: "- [-] stretch 🔁 every day ❌ 2026-11-20 ⏳ 2026-11-20\n",
			want: "- [ ] stretch 🔁 every day ⏳ 2026-11-21\n- [x] stretch 🔁 every day ❌ 2026-11-20 ⏳ 2026-11-20\n"},
		{name: "the scheduled date left out, as set", today: "2026-11-26", set: unscheduled,
			note: "- [ ] review 🔁 every week ⏳ 2026-11-20 📅 2026-11-22\n",
			want: "- [ ] review 🔁 every week 📅 2026-11-29\n- [x] review 🔁 every week ⏳ 2026-11-20 📅 2026-11-22 ✅ 2026-11-26\n"},
		{name: "a rule the plugin does not read changes nothing", today: "2026-11-26", set: defaults,
			note: "- [ ] moon 🔁 every blue moon 📅 2026-11-22\n", kind: errors.Unsupported},
		{name: "a due date that is no date changes nothing", today: "2026-11-26", set: defaults,
			note: "- [ ] leap 🔁 every year 📅 2026-02-30\n", kind: errors.Unsupported},
	}
	for _, c := range cases {
		line := strings.Count(c.note, "\n") // the task is the note's last line
		if strings.HasSuffix(c.note, "\n") {
			line--
		}
		got, err := Update([]byte(c.note), Target{Line: line + 1}, Toggle, date(c.today), c.set)
		if c.kind != "" {
			if errors.From(err) == nil || errors.From(err).Kind != c.kind {
				t.Errorf("%s: %v, want %s", c.name, err, c.kind)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %v\n got %q\nwant %q", c.name, err, got, c.want)
		}
	}
}
