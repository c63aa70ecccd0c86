package tasks

import (
	"strings"
	"testing"
	"time"
)

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// The cases of the Tasks plugin's documentation (Recurring Tasks), and
// each kind of rule it lists; the weekdays are 2026's.
func TestNextDate(t *testing.T) {
	cases := []struct{ rule, ref, today, want string }{
		{"every Sunday", "2021-04-25", "2021-04-24", "2021-05-02"},
		{"every week", "2021-02-06", "2022-02-13", "2021-02-13"},
		{"every week when done", "2021-02-06", "2022-02-13", "2022-02-20"},
		{"every 3 days", "2026-11-28", "2026-11-26", "2026-12-01"},
		{"every 10 days when done", "2026-01-01", "2026-11-26", "2026-12-06"},
		{"every day", "2026-12-31", "2026-11-26", "2027-01-01"},
		{"every weekday", "2026-11-27", "2026-11-26", "2026-11-30"},
		{"every week on Sunday", "2026-11-26", "2026-11-26", "2026-11-29"},
		{"every week on Tuesday, Friday", "2026-11-24", "2026-11-26", "2026-11-27"},
		{"every week on Tuesday, Friday", "2026-11-27", "2026-11-26", "2026-12-01"},
		{"every Monday and Thursday", "2026-11-26", "2026-11-26", "2026-11-30"},
		{"every 2 weeks", "2021-10-30", "2026-11-26", "2021-11-13"},
		{"every 3 weeks on Friday", "2026-11-25", "2026-11-26", "2026-11-27"},
		{"every 3 weeks on Friday", "2026-11-27", "2026-11-26", "2026-12-18"},
		{"every 2 months", "2026-11-26", "2026-11-26", "2027-01-26"},
		{"every month on the 1st", "2026-11-26", "2026-11-26", "2026-12-01"},
		{"every month on the last", "2022-01-31", "2026-11-26", "2022-02-28"},
		{"every month on the last", "2022-02-28", "2026-11-26", "2022-03-31"},
		{"every month", "2021-10-31", "2026-11-26", "2021-11-30"},
		{"every month", "2021-11-30", "2026-11-26", "2021-12-30"},
		{"every month", "2022-01-30", "2026-11-26", "2022-02-28"},
		{"every month", "2022-02-28", "2026-11-26", "2022-03-28"},
		{"every month when done", "2022-02-28", "2026-01-31", "2026-02-28"},
		{"every 3 months", "2022-01-31", "2026-11-26", "2022-04-30"},
		{"every month on the 31st", "2022-01-31", "2026-11-26", "2022-03-31"},
		{"every month on the 31st", "2022-03-31", "2026-11-26", "2022-05-31"},
		{"every month on the last Friday", "2026-11-27", "2026-11-26", "2026-12-25"},
		{"every month on the 2nd last Friday", "2026-11-20", "2026-11-26", "2026-12-18"},
		{"every 6 months on the 2nd Wednesday", "2026-01-14", "2026-11-26", "2026-07-08"},
		{"every January on the 15th", "2026-01-15", "2026-11-26", "2027-01-15"},
		{"every February on the last", "2027-02-28", "2026-11-26", "2028-02-29"},
		{"every April and December on the 1st and 24th", "2026-04-24", "2026-11-26", "2026-12-01"},
		{"every year", "2024-02-29", "2026-11-26", "2025-02-28"},
		{"every 2 years", "2026-11-26", "2026-11-26", "2028-11-26"},
		{"Every Week On MONDAY", "2026-11-26", "2026-11-26", "2026-11-30"},
	}
	for _, c := range cases {
		r, err := ParseRule(c.rule)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		got, err := r.NextDate(date(c.ref), date(c.today))
		if err != nil || got.Format(time.DateOnly) != c.want {
			t.Errorf("%s from %s (today %s) = %s, %v; want %s", c.rule, c.ref, c.today, got.Format(time.DateOnly), err, c.want)
		}
	}
}

func TestParseRuleRefuses(t *testing.T) {
	for rule, want := range map[string]string{
		"each week":                  `starts with "every"`,
		"every blue moon":            `"blue" is not day`,
		"every 0 days":               "not an interval",
		"every day for 3 times":      `"for 3 times" is not read`,
		"every week until 2027-1-1":  `"until 2027-1-1" is not read`,
		"every year on the 15th":     "names its months",
		"every month on the 32nd":    "no day 32",
		"every month on the Friday":  "expected a day such as 1st",
		"every day on Monday":        "daily rule",
		"every Monday on Friday":     "given twice",
		"every week on Funday":       "weekday's name",
		"every 2 weeks on the 1st":   "weekday's name",
		"every March and Fooary":     "month's name",
		"every month on the 1st Mon": "",
	} {
		_, err := ParseRule(rule)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", rule, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", rule, err, want)
		}
	}
}
