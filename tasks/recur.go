package tasks

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Rule is a recurrence rule as the Tasks plugin reads it: the subset of
// rrule's English ("every 2 weeks on Monday, Friday", "every month on the
// last Friday", "every January on the 15th", "every 10 days when done")
// that its documentation lists. The plugin hands the text to rrule.js and
// computes the next date with it; NextDate follows the same iCalendar
// rules, with the plugin's own correction for months and years that lack
// the day (Jan 31 "every month" is next due Feb 28, not Mar 31).
type Rule struct {
	freq     freq
	interval int
	weekdays []time.Weekday // weekly: the days; monthly/yearly with nth
	nth      []int          // with weekdays in monthly/yearly rules: 1st, 2nd, -1 last, 0 every
	monthDay []int          // 1..31, or -1 last, -2 second last
	months   []time.Month   // yearly: the months
	whenDone bool           // next date counted from the completion day
}

type freq int

const (
	daily freq = iota
	weekly
	monthly
	yearly
)

// ParseRule reads a recurrence rule, or says what in it is not a rule the
// Tasks plugin reads.
func ParseRule(text string) (Rule, error) {
	s := strings.ToLower(strings.Join(strings.Fields(text), " "))
	r := Rule{interval: 1}
	if rest, ok := strings.CutSuffix(s, " when done"); ok {
		s, r.whenDone = rest, true
	}
	w := newWords(s)
	if !w.take("every") {
		return r, fmt.Errorf("a rule starts with \"every\"")
	}
	if n, err := strconv.Atoi(w.peek()); err == nil {
		if n < 1 || n > 1000 {
			return r, fmt.Errorf("%d is not an interval (1 to 1000)", n)
		}
		r.interval = n
		w.next()
	}
	switch unit := w.next(); {
	case unit == "day" || unit == "days":
		r.freq = daily
	case unit == "week" || unit == "weeks":
		r.freq = weekly
	case unit == "month" || unit == "months":
		r.freq = monthly
	case unit == "year" || unit == "years":
		r.freq = yearly
	case unit == "weekday" || unit == "weekdays":
		r.freq = weekly
		r.weekdays = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	case weekdayOf(unit) >= 0:
		r.freq = weekly
		w.back()
		days, err := w.weekdayList()
		if err != nil {
			return r, err
		}
		r.weekdays = days
	case monthOf(unit) > 0:
		r.freq = yearly
		w.back()
		for {
			m := monthOf(w.next())
			if m == 0 {
				return r, fmt.Errorf("expected a month's name")
			}
			r.months = append(r.months, m)
			if !w.list() {
				break
			}
		}
	default:
		return r, fmt.Errorf("%q is not day, week, month, year, weekday, a weekday's or a month's name", unit)
	}
	if w.take("on") {
		if err := r.on(&w); err != nil {
			return r, err
		}
	}
	if !w.done() {
		return r, fmt.Errorf("%q is not read (\"for N times\" and \"until\" are not supported by the Tasks plugin either)", strings.Join(w.rest(), " "))
	}
	return r, nil
}

// on reads what follows "on": weekdays for a weekly rule, "the 1st",
// "the last", "the 2nd last Friday" for a monthly or yearly one.
func (r *Rule) on(w *words) error {
	switch r.freq {
	case weekly:
		if r.weekdays != nil {
			return fmt.Errorf("the days are given twice")
		}
		w.take("the")
		days, err := w.weekdayList()
		r.weekdays = days
		return err
	case monthly, yearly:
		if r.freq == yearly && r.months == nil {
			return fmt.Errorf("a yearly rule with \"on\" names its months, e.g. every January on the 15th")
		}
		w.take("the")
		for {
			n, ok := ordinal(w.peek())
			if !ok {
				return fmt.Errorf("expected a day such as 1st, 15th or last, not %q", w.peek())
			}
			w.next()
			if n > 0 && w.peek() == "last" { // "2nd last"
				n = -n
				w.next()
			}
			if d := weekdayOf(w.peek()); d >= 0 {
				w.next()
				r.weekdays, r.nth = append(r.weekdays, d), append(r.nth, n)
			} else {
				if n > 31 || n < -31 {
					return fmt.Errorf("a month has no day %d", n)
				}
				r.monthDay = append(r.monthDay, n)
			}
			if !w.list() {
				break
			}
			w.take("the")
		}
		if r.monthDay != nil && r.weekdays != nil {
			return fmt.Errorf("give days of the month or weekdays, not both")
		}
		return nil
	}
	return fmt.Errorf("a daily rule has no \"on\"")
}

// NextDate is the reference date of the next occurrence: the first day
// after ref (the task's due, else scheduled, else start date) that the
// rule selects, or after today for a "when done" rule.
func (r Rule) NextDate(ref, today time.Time) (time.Time, error) {
	after := day(ref)
	if r.whenDone {
		after = day(today)
	}
	start := after
	next, ok := r.after(start, after)
	if !ok {
		return time.Time{}, fmt.Errorf("the rule selects no day in the next %d years", horizonYears)
	}
	// The plugin's correction: a plain "every N months" or "every N
	// years" whose day the target month lacks moves back a day at a time
	// until the next date is N months or years on, instead of skipping.
	if r.plain() {
		for r.skipsTooFar(after, next) {
			after = after.AddDate(0, 0, -1)
			if next, ok = r.after(after, after); !ok {
				break
			}
		}
	}
	return next, nil
}

// plain reports a monthly or yearly rule that names no days: the ones the
// plugin corrects at month ends.
func (r Rule) plain() bool {
	return (r.freq == monthly || r.freq == yearly && r.months == nil) && r.monthDay == nil && r.weekdays == nil
}

func (r Rule) skipsTooFar(after, next time.Time) bool {
	if r.freq == monthly {
		return (next.Year()-after.Year())*12+int(next.Month()-after.Month()) > r.interval
	}
	return next.Year()-after.Year() > r.interval
}

const horizonYears = 400

// after is the first day after `after` that the rule, started on start,
// selects.
func (r Rule) after(start, after time.Time) (time.Time, bool) {
	end := after.AddDate(horizonYears, 0, 0)
	for d := after.AddDate(0, 0, 1); d.Before(end); d = d.AddDate(0, 0, 1) {
		if r.selects(start, d) {
			return d, true
		}
	}
	return time.Time{}, false
}

// selects reports whether the rule started on start has an occurrence on
// day d (d after start), by iCalendar's rules: the interval counts days,
// weeks from Monday, months or years from the start's; a rule that names
// no day takes the start's weekday, day of month and month.
func (r Rule) selects(start, d time.Time) bool {
	switch r.freq {
	case daily:
		return daysBetween(start, d)%r.interval == 0
	case weekly:
		if daysBetween(monday(start), monday(d))/7%r.interval != 0 {
			return false
		}
		if r.weekdays == nil {
			return d.Weekday() == start.Weekday()
		}
		return slices.Contains(r.weekdays, d.Weekday())
	case monthly:
		if ((d.Year()-start.Year())*12+int(d.Month()-start.Month()))%r.interval != 0 {
			return false
		}
	case yearly:
		if (d.Year()-start.Year())%r.interval != 0 {
			return false
		}
		if months := r.months; months == nil && d.Month() != start.Month() || months != nil && !slices.Contains(months, d.Month()) {
			return false
		}
	}
	return r.selectsDay(start, d)
}

// selectsDay reports whether d is one of the days of its month that a
// monthly or yearly rule names.
func (r Rule) selectsDay(start, d time.Time) bool {
	last := time.Date(d.Year(), d.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	switch {
	case r.monthDay != nil:
		for _, md := range r.monthDay {
			if md == d.Day() || md < 0 && last+md+1 == d.Day() {
				return true
			}
		}
		return false
	case r.weekdays != nil:
		for i, wd := range r.weekdays {
			n := r.nth[i]
			if wd == d.Weekday() && (n == 0 || n > 0 && (d.Day()-1)/7+1 == n || n < 0 && (last-d.Day())/7+1 == -n) {
				return true
			}
		}
		return false
	}
	return d.Day() == start.Day()
}

func day(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func daysBetween(a, b time.Time) int {
	return int(math.Round(b.Sub(a).Hours() / 24))
}

func monday(t time.Time) time.Time {
	return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
}

// words walks a rule's words; commas and "and" separate list items.
type words struct {
	w []string
	i int
}

func newWords(s string) words {
	s = strings.ReplaceAll(s, ",", " , ")
	return words{w: strings.Fields(s)}
}

func (w *words) peek() string {
	if w.i < len(w.w) {
		return w.w[w.i]
	}
	return ""
}

func (w *words) next() string { s := w.peek(); w.i++; return s }
func (w *words) back()        { w.i-- }
func (w *words) done() bool   { return w.i >= len(w.w) }
func (w *words) rest() []string {
	if w.done() {
		return nil
	}
	return w.w[w.i:]
}

func (w *words) take(s string) bool {
	if w.peek() == s {
		w.i++
		return true
	}
	return false
}

// list takes a list separator (",", "and" or ", and") and reports whether
// there was one.
func (w *words) list() bool {
	c := w.take(",")
	return w.take("and") || c
}

func (w *words) weekdayList() ([]time.Weekday, error) {
	var out []time.Weekday
	for {
		d := weekdayOf(w.next())
		if d < 0 {
			return nil, fmt.Errorf("expected a weekday's name")
		}
		out = append(out, d)
		if !w.list() {
			return out, nil
		}
	}
}

func weekdayOf(s string) time.Weekday {
	s = strings.TrimSuffix(s, "s") // "every Mondays"
	for d := time.Sunday; d <= time.Saturday; d++ {
		name := strings.ToLower(d.String())
		if s == name || len(s) >= 2 && strings.HasPrefix(name, s) && (len(s) == 2 || len(s) == 3) {
			return d
		}
	}
	return -1
}

func monthOf(s string) time.Month {
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		if s == name || len(s) == 3 && strings.HasPrefix(name, s) {
			return m
		}
	}
	return 0
}

// ordinal reads "1st", "22nd", "last" (-1).
func ordinal(s string) (int, bool) {
	if s == "last" {
		return -1, true
	}
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if n, ok := strings.CutSuffix(s, suf); ok {
			if v, err := strconv.Atoi(n); err == nil && v >= 1 {
				return v, true
			}
		}
	}
	return 0, false
}
