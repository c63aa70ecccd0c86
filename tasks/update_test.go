package tasks

import (
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
		{name: "a recurring task is refused", op: Complete, line: 4, kind: errors.Unsupported},
		{name: "no task at the line", op: Complete, line: 1, kind: errors.FileNotFound},
		{name: "no such block", op: Complete, block: "nope", kind: errors.FileNotFound},
	}
	for _, c := range cases {
		got, err := Update([]byte(note), c.line, c.block, c.op, today)
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
