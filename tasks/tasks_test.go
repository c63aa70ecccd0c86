package tasks

import (
	"reflect"
	"slices"
	"testing"
)

const plan = "---\ntags: [x]\n- [ ] not a task: frontmatter\n---\n# Plan\n" +
	"- [ ] Call the plumber 📅 2026-12-01 ⏫ #home\n" +
	"- [x] Pay rent ✅ 2026-11-01 🔁 every month 📅 2026-11-01\n" +
	"  * [/] Draft the report ⏳ 2026-11-30 🛫 2026-11-20 #work/q4 ^rep\n" +
	"1. [-] Old idea ❌ 2026-10-02 ➕ 2026-09-01\n" +
	"- [ ] Water plants [due:: 2026-11-28] [repeat:: every 3 days] [priority:: low]\n" +
	"```\n- [ ] in code\n```\n" +
	"- [?] A question\n" +
	"- not a task\n" +
	"- [ ]\n"

func TestParse(t *testing.T) {
	got := Parse("Plan.md", []byte(plan))
	want := []Task{
		{Path: "Plan.md", Line: 6, Status: "todo", Text: "Call the plumber #home", Due: "2026-12-01", Priority: "high", Tags: []string{"home"}},
		{Path: "Plan.md", Line: 7, Status: "done", Text: "Pay rent", Done: "2026-11-01", Due: "2026-11-01", Recurrence: "every month"},
		{Path: "Plan.md", Line: 8, Status: "in_progress", Text: "Draft the report #work/q4", Scheduled: "2026-11-30", Start: "2026-11-20", Tags: []string{"work/q4"}, BlockID: "rep"},
		{Path: "Plan.md", Line: 9, Status: "cancelled", Text: "Old idea", Cancelled: "2026-10-02", Created: "2026-09-01"},
		{Path: "Plan.md", Line: 10, Status: "todo", Text: "Water plants", Due: "2026-11-28", Recurrence: "every 3 days", Priority: "low"},
		{Path: "Plan.md", Line: 14, Status: "?", Text: "A question"},
		{Path: "Plan.md", Line: 16, Status: "todo", Text: ""},
	}
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w Task
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("task %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	}
}

func TestQuery(t *testing.T) {
	all := Parse("Projects/Plan.md", []byte(plan))
	lines := func(q Query) []int {
		var out []int
		for _, tk := range all {
			if q.Match(tk) {
				out = append(out, tk.Line)
			}
		}
		return out
	}
	for _, c := range []struct {
		q    Query
		want []int
	}{
		{Query{}, []int{6, 10, 16}},
		{Query{Status: "any"}, []int{6, 7, 8, 9, 10, 14, 16}},
		{Query{Status: "done"}, []int{7}},
		{Query{DueBefore: "2026-11-30"}, []int{10}},
		{Query{DueAfter: "2026-11-29"}, []int{6}},
		{Query{Status: "any", Tag: "#work"}, []int{8}},
		{Query{Status: "any", Tag: "work/q4"}, []int{8}},
		{Query{Tag: "wor"}, nil},
		{Query{Folder: "Projects/"}, []int{6, 10, 16}},
		{Query{Folder: "Other"}, nil},
		{Query{Text: "PLUMBER"}, []int{6}},
	} {
		if got := lines(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%+v: lines %v, want %v", c.q, got, c.want)
		}
	}
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, b Task) int {
		if Less(a, b) {
			return -1
		}
		return 1
	})
	var order []int
	for _, tk := range sorted {
		order = append(order, tk.Line)
	}
	if want := []int{7, 10, 6, 8, 9, 14, 16}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v (by due date, undated last)", order, want)
	}
}
