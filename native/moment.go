package native

import (
	"strconv"
	"strings"
	"time"
)

// momentFormat formats t as moment.js formats it with format f, the way
// Obsidian names daily and periodic notes and fills {{date:…}}: text in
// [brackets] is literal, and unknown letters pass through. Weeks are
// moment's: gggg and ww by its default English locale (weeks start on
// Sunday; week 1 holds 1 January), GGGG and WW by ISO 8601.
func momentFormat(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); {
		if f[i] == '[' {
			if j := strings.IndexByte(f[i:], ']'); j > 0 {
				b.WriteString(f[i+1 : i+j])
				i += j + 1
				continue
			}
		}
		matched := false
		for _, tok := range momentTokens {
			if strings.HasPrefix(f[i:], tok.moment) {
				b.WriteString(tok.format(t))
				i += len(tok.moment)
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(f[i])
			i++
		}
	}
	return b.String()
}

// layout formats with a Go time layout.
func layout(l string) func(time.Time) string { return func(t time.Time) string { return t.Format(l) } }

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// momentTokens are the moment.js tokens, longest first.
var momentTokens = []struct {
	moment string
	format func(time.Time) string
}{
	{"YYYY", layout("2006")}, {"YY", layout("06")},
	{"GGGG", func(t time.Time) string { y, _ := t.ISOWeek(); return pad(y, 4) }},
	{"gggg", func(t time.Time) string { y, _ := localeWeek(t); return pad(y, 4) }},
	{"WW", func(t time.Time) string { _, w := t.ISOWeek(); return pad(w, 2) }},
	{"W", func(t time.Time) string { _, w := t.ISOWeek(); return strconv.Itoa(w) }},
	{"ww", func(t time.Time) string { _, w := localeWeek(t); return pad(w, 2) }},
	{"w", func(t time.Time) string { _, w := localeWeek(t); return strconv.Itoa(w) }},
	{"Q", func(t time.Time) string { return strconv.Itoa((int(t.Month()) + 2) / 3) }},
	{"MMMM", layout("January")}, {"MMM", layout("Jan")}, {"MM", layout("01")}, {"M", layout("1")},
	{"DDDD", func(t time.Time) string { return pad(t.YearDay(), 3) }},
	{"Do", func(t time.Time) string { return ordinal(t.Day()) }},
	{"dddd", layout("Monday")}, {"ddd", layout("Mon")}, {"DD", layout("02")}, {"D", layout("2")},
	{"HH", layout("15")}, {"hh", layout("03")}, {"h", layout("3")},
	{"mm", layout("04")}, {"m", layout("4")}, {"ss", layout("05")}, {"s", layout("5")},
	{"A", layout("PM")}, {"a", layout("pm")}, {"ZZ", layout("-0700")}, {"Z", layout("-07:00")},
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// localeWeek is t's week-year and week as moment's English locale counts
// them (dow 0, doy 6: weeks start on Sunday, and week 1 is the one that
// holds 1 January), moment's weekOfYear.
func localeWeek(t time.Time) (year, week int) {
	const dow, doy = 0, 6
	firstWeekOffset := func(y int) int {
		fwd := 7 + dow - doy
		fwdlw := (7 + int(time.Date(y, time.January, fwd, 0, 0, 0, 0, time.UTC).Weekday()) - dow) % 7
		return -fwdlw + fwd - 1
	}
	weeksInYear := func(y int) int {
		days := time.Date(y+1, time.January, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC)).Hours() / 24
		return (int(days) - firstWeekOffset(y) + firstWeekOffset(y+1)) / 7
	}
	y := t.Year()
	w := (t.YearDay()-firstWeekOffset(y)-1)/7 + 1
	if t.YearDay()-firstWeekOffset(y)-1 < 0 {
		w = 0 // floor, for the days before the first week
	}
	switch {
	case w < 1:
		return y - 1, w + weeksInYear(y-1)
	case w > weeksInYear(y):
		return y + 1, w - weeksInYear(y)
	}
	return y, w
}
