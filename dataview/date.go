package dataview

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Dates are time.Time values in their own zone, as luxon's DateTime keeps
// one; what luxon does with them (calendar arithmetic, differences,
// formats) is done here the way luxon 3.4 does it.

func daysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// dateMillis is the date's milliseconds (luxon's resolution).
func dateMillis(t time.Time) int { return t.Nanosecond() / 1e6 }

// plusDuration is luxon's DateTime.plus: years and months on the
// calendar (the day clamped to the month), then days and weeks on the
// calendar, then the rest as elapsed time.
func plusDuration(t time.Time, d Duration) time.Time {
	years := math.Trunc(d.v[uYears])
	months := math.Trunc(d.v[uMonths]) + math.Trunc(d.v[uQuarters])*3
	y := t.Year() + int(years)
	m := int(t.Month()) + int(months)
	// Normalise the month first: the clamp uses the target month.
	for m > 12 {
		m -= 12
		y++
	}
	for m < 1 {
		m += 12
		y--
	}
	day := min(t.Day(), daysIn(y, time.Month(m))) + int(math.Trunc(d.v[uDays])) + int(math.Trunc(d.v[uWeeks]))*7
	out := time.Date(y, time.Month(m), day, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	var rest Duration
	rest.v = [nUnits]float64{
		d.v[uYears] - years, d.v[uQuarters] - math.Trunc(d.v[uQuarters]), d.v[uMonths] - math.Trunc(d.v[uMonths]),
		d.v[uWeeks] - math.Trunc(d.v[uWeeks]), d.v[uDays] - math.Trunc(d.v[uDays]),
		d.v[uHours], d.v[uMinutes], d.v[uSeconds], d.v[uMillis],
	}
	rest.has = 1<<nUnits - 1
	if ms := rest.as("milliseconds"); ms != 0 {
		out = out.Add(time.Duration(math.Round(ms)) * time.Millisecond)
	}
	return out
}

// startOf is luxon's startOf for year, month, week (Monday), day.
func startOf(t time.Time, unit string) time.Time {
	y, m, d := t.Date()
	loc := t.Location()
	switch unit {
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc)
	case "week":
		wd := (int(t.Weekday()) + 6) % 7 // Monday = 0
		return time.Date(y, m, d-wd, 0, 0, 0, 0, loc)
	}
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// endOf is the last millisecond of the unit.
func endOf(t time.Time, unit string) time.Time {
	s := startOf(t, unit)
	var next time.Time
	switch unit {
	case "year":
		next = time.Date(s.Year()+1, 1, 1, 0, 0, 0, 0, s.Location())
	case "month":
		next = time.Date(s.Year(), s.Month()+1, 1, 0, 0, 0, 0, s.Location())
	case "week":
		next = time.Date(s.Year(), s.Month(), s.Day()+7, 0, 0, 0, 0, s.Location())
	default:
		next = time.Date(s.Year(), s.Month(), s.Day()+1, 0, 0, 0, 0, s.Location())
	}
	return next.Add(-time.Millisecond)
}

// dayDiff counts calendar days between two dates' local days.
func dayDiff(earlier, later time.Time) int {
	ey, em, ed := earlier.Date()
	ly, lm, ld := later.Date()
	ms := time.Date(ly, lm, ld, 0, 0, 0, 0, time.UTC).Sub(time.Date(ey, em, ed, 0, 0, 0, 0, time.UTC)).Milliseconds()
	return int(math.Floor(float64(ms) / 864e5))
}

// dateDiff is Dataview's a - b: luxon's diff in years, months, days,
// hours, minutes, seconds and milliseconds, normalised.
func dateDiff(a, b time.Time) Duration {
	later, earlier := a, b
	negate := false
	if b.UnixMilli() > a.UnixMilli() {
		later, earlier, negate = b, a, true
	}
	var res Duration
	cursor := earlier
	type differ struct {
		unit int
		f    func(x, y time.Time) int
	}
	differs := []differ{
		{uYears, func(x, y time.Time) int { return y.Year() - x.Year() }},
		{uMonths, func(x, y time.Time) int { return int(y.Month()) - int(x.Month()) + (y.Year()-x.Year())*12 }},
		{uDays, dayDiff},
	}
	for _, df := range differs {
		res.v[df.unit] = float64(df.f(cursor, later))
		res.has |= 1 << df.unit
		high := plusDuration(earlier, res)
		if high.UnixMilli() > later.UnixMilli() {
			res.v[df.unit]--
			cursor = plusDuration(earlier, res)
			if cursor.UnixMilli() > later.UnixMilli() {
				res.v[df.unit]--
				cursor = plusDuration(earlier, res)
			}
		} else {
			cursor = high
		}
	}
	remaining := float64(later.UnixMilli() - cursor.UnixMilli())
	low := durOf(uMillis, remaining).shiftTo(1<<uHours | 1<<uMinutes | 1<<uSeconds | 1<<uMillis)
	out := low.plus(res)
	if negate {
		out = out.negate()
	}
	return normalizeDuration(out)
}

// dateFromParts makes a local date; ok is false for an impossible one
// (luxon's invalid DateTime).
func dateFromParts(loc *time.Location, y, mo, d, h, mi, s, ms int) (time.Time, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, time.Month(mo)) || h > 23 || mi > 59 || s > 59 {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, ms*1e6, loc), true
}

// utcZone is luxon's UTC zone (a date written with Z or +00:00), which
// is not the local zone even where that is UTC: luxon tells them apart
// (they are not equal, and Intl writes the narrow space before AM/PM
// only for it).
var utcZone = time.FixedZone("UTC", 0)

// zoneID names a zone as luxon's equality sees it.
func zoneID(loc *time.Location) string {
	if loc == utcZone {
		return "utc"
	}
	return loc.String()
}

// ampmSpace is the space Intl writes before AM/PM.
func ampmSpace(t time.Time) string {
	if t.Location() == utcZone {
		return nnbsp
	}
	return " "
}

// shortZone is Intl's short zone name: UTC, or GMT+1.
func shortZone(t time.Time) string {
	_, off := t.Zone()
	if off == 0 {
		return "UTC"
	}
	return "GMT" + offsetText(t, 1)
}

// fixedZone is luxon's "UTC+5" or "UTC-03:30".
func fixedZone(sign string, hhmm string) *time.Location {
	h, m, _ := strings.Cut(hhmm, ":")
	hi, _ := strconv.Atoi(h)
	mi, _ := strconv.Atoi(m)
	off := hi*3600 + mi*60
	if sign == "-" {
		off = -off
	}
	if off == 0 {
		return utcZone
	}
	return time.FixedZone(offsetName(off), off)
}

// offsetName is luxon's name for a fixed offset zone: UTC+5, UTC-3:30.
func offsetName(off int) string {
	sign := "+"
	if off < 0 {
		sign = "-"
		off = -off
	}
	h, m := off/3600, off%3600/60
	if m == 0 {
		return fmt.Sprintf("UTC%s%d", sign, h)
	}
	return fmt.Sprintf("UTC%s%d:%02d", sign, h, m)
}

var (
	monthsLong  = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	weekdayLong = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
)

// luxonWeekday is 1 (Monday) to 7 (Sunday).
func luxonWeekday(t time.Time) int { return (int(t.Weekday())+6)%7 + 1 }

// formatDate is luxon's toFormat in en-US.
func formatDate(t time.Time, f string) string {
	var b strings.Builder
	rs := []rune(f)
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			b.WriteString(string(rs[i+1 : min(j, len(rs))]))
			i = j + 1
			continue
		}
		j := i
		for j < len(rs) && rs[j] == c {
			j++
		}
		b.WriteString(dateToken(t, string(rs[i:j])))
		i = j
	}
	return b.String()
}

func pad(n, width int) string {
	s := strconv.Itoa(abs(n))
	for len(s) < width {
		s = "0" + s
	}
	if n < 0 {
		return "-" + s
	}
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

const nnbsp = "\u202f" // ICU's space before AM/PM in en-US time formats

func hour12(t time.Time) int {
	h := t.Hour() % 12
	if h == 0 {
		return 12
	}
	return h
}

func meridiem(t time.Time) string {
	if t.Hour() < 12 {
		return "AM"
	}
	return "PM"
}

func offsetText(t time.Time, style int) string {
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign = "-"
		off = -off
	}
	h, m := off/3600, off%3600/60
	switch style {
	case 1:
		if m == 0 {
			return sign + strconv.Itoa(h)
		}
		return sign + strconv.Itoa(h) + ":" + pad(m, 2)
	case 2:
		return sign + pad(h, 2) + ":" + pad(m, 2)
	}
	return sign + pad(h, 2) + pad(m, 2)
}

// dateTokens format the runs of format letters luxon knows, in en-US.
var dateTokens = map[string]func(t time.Time) string{
	"S":      func(t time.Time) string { return strconv.Itoa(dateMillis(t)) },
	"SSS":    func(t time.Time) string { return pad(dateMillis(t), 3) },
	"u":      func(t time.Time) string { return pad(dateMillis(t), 3) },
	"uu":     func(t time.Time) string { return pad(dateMillis(t)/10, 2) },
	"uuu":    func(t time.Time) string { return strconv.Itoa(dateMillis(t) / 100) },
	"s":      func(t time.Time) string { return strconv.Itoa(t.Second()) },
	"ss":     func(t time.Time) string { return pad(t.Second(), 2) },
	"m":      func(t time.Time) string { return strconv.Itoa(t.Minute()) },
	"mm":     func(t time.Time) string { return pad(t.Minute(), 2) },
	"h":      func(t time.Time) string { return strconv.Itoa(hour12(t)) },
	"hh":     func(t time.Time) string { return pad(hour12(t), 2) },
	"H":      func(t time.Time) string { return strconv.Itoa(t.Hour()) },
	"HH":     func(t time.Time) string { return pad(t.Hour(), 2) },
	"K":      func(t time.Time) string { return strconv.Itoa(t.Hour() % 12) },
	"KK":     func(t time.Time) string { return pad(t.Hour()%12, 2) },
	"Z":      func(t time.Time) string { return offsetText(t, 1) },
	"ZZ":     func(t time.Time) string { return offsetText(t, 2) },
	"ZZZ":    func(t time.Time) string { return offsetText(t, 3) },
	"ZZZZ":   zoneAbbrev,
	"ZZZZZ":  zoneAbbrev,
	"z":      zoneName,
	"a":      meridiem,
	"d":      func(t time.Time) string { return strconv.Itoa(t.Day()) },
	"dd":     func(t time.Time) string { return pad(t.Day(), 2) },
	"c":      func(t time.Time) string { return strconv.Itoa(luxonWeekday(t)) },
	"E":      func(t time.Time) string { return strconv.Itoa(luxonWeekday(t)) },
	"ccc":    func(t time.Time) string { return weekdayLong[luxonWeekday(t)-1][:3] },
	"EEE":    func(t time.Time) string { return weekdayLong[luxonWeekday(t)-1][:3] },
	"cccc":   func(t time.Time) string { return weekdayLong[luxonWeekday(t)-1] },
	"EEEE":   func(t time.Time) string { return weekdayLong[luxonWeekday(t)-1] },
	"ccccc":  func(t time.Time) string { return weekdayLong[luxonWeekday(t)-1][:1] },
	"EEEEE":  func(t time.Time) string { return weekdayLong[luxonWeekday(t)-1][:1] },
	"L":      func(t time.Time) string { return strconv.Itoa(int(t.Month())) },
	"M":      func(t time.Time) string { return strconv.Itoa(int(t.Month())) },
	"LL":     func(t time.Time) string { return pad(int(t.Month()), 2) },
	"MM":     func(t time.Time) string { return pad(int(t.Month()), 2) },
	"LLL":    func(t time.Time) string { return monthsLong[t.Month()-1][:3] },
	"MMM":    func(t time.Time) string { return monthsLong[t.Month()-1][:3] },
	"LLLL":   func(t time.Time) string { return monthsLong[t.Month()-1] },
	"MMMM":   func(t time.Time) string { return monthsLong[t.Month()-1] },
	"LLLLL":  func(t time.Time) string { return monthsLong[t.Month()-1][:1] },
	"MMMMM":  func(t time.Time) string { return monthsLong[t.Month()-1][:1] },
	"y":      func(t time.Time) string { return strconv.Itoa(t.Year()) },
	"yy":     func(t time.Time) string { return pad(t.Year()%100, 2) },
	"yyyy":   func(t time.Time) string { return pad(t.Year(), 4) },
	"yyyyyy": func(t time.Time) string { return pad(t.Year(), 6) },
	"kk":     func(t time.Time) string { y, _ := t.ISOWeek(); return pad(y%100, 2) },
	"kkkk":   func(t time.Time) string { y, _ := t.ISOWeek(); return pad(y, 4) },
	"W":      func(t time.Time) string { _, w := t.ISOWeek(); return strconv.Itoa(w) },
	"WW":     func(t time.Time) string { _, w := t.ISOWeek(); return pad(w, 2) },
	"o":      func(t time.Time) string { return strconv.Itoa(t.YearDay()) },
	"ooo":    func(t time.Time) string { return pad(t.YearDay(), 3) },
	"q":      func(t time.Time) string { return strconv.Itoa((int(t.Month())-1)/3 + 1) },
	"qq":     func(t time.Time) string { return pad((int(t.Month())-1)/3+1, 2) },
	"X":      func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) },
	"x":      func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) },
	"G":      func(time.Time) string { return "AD" },
	"GG":     func(time.Time) string { return "Anno Domini" },
	"GGGGG":  func(time.Time) string { return "A" },
	"D":      func(t time.Time) string { return fmt.Sprintf("%d/%d/%d", t.Month(), t.Day(), t.Year()) },
	"DD": func(t time.Time) string {
		return fmt.Sprintf("%s %d, %d", monthsLong[t.Month()-1][:3], t.Day(), t.Year())
	},
	"DDD": func(t time.Time) string { return fmt.Sprintf("%s %d, %d", monthsLong[t.Month()-1], t.Day(), t.Year()) },
	"DDDD": func(t time.Time) string {
		return fmt.Sprintf("%s, %s %d, %d", weekdayLong[luxonWeekday(t)-1], monthsLong[t.Month()-1], t.Day(), t.Year())
	},
	"t": func(t time.Time) string {
		return fmt.Sprintf("%d:%02d%s%s", hour12(t), t.Minute(), ampmSpace(t), meridiem(t))
	},
	"tt": func(t time.Time) string {
		return fmt.Sprintf("%d:%02d:%02d%s%s", hour12(t), t.Minute(), t.Second(), ampmSpace(t), meridiem(t))
	},
	"ttt": func(t time.Time) string {
		return fmt.Sprintf("%d:%02d:%02d%s%s %s", hour12(t), t.Minute(), t.Second(), ampmSpace(t), meridiem(t), shortZone(t))
	},
	"T":  func(t time.Time) string { return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute()) },
	"TT": func(t time.Time) string { return fmt.Sprintf("%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second()) },
	"TTT": func(t time.Time) string {
		return fmt.Sprintf("%02d:%02d:%02d %s", t.Hour(), t.Minute(), t.Second(), shortZone(t))
	},
}

// dateMacros are luxon's localised formats made of other tokens.
var dateMacros = map[string][2]string{
	"f": {"D", ", t"}, "ff": {"DD", ", t"}, "fff": {"DDD", " at ttt"}, "ffff": {"DDDD", " at ttt"},
	"F": {"D", ", tt"}, "FF": {"DD", ", tt"}, "FFF": {"DDD", " at ttt"}, "FFFF": {"DDDD", " at ttt"},
}

// zoneName is luxon's zone name: the IANA name, UTC+2 for an offset.
func zoneName(t time.Time) string { return t.Location().String() }

// zoneAbbrev is ZZZZ: an offset zone's name, else Intl's short name.
func zoneAbbrev(t time.Time) string {
	if n := t.Location().String(); strings.HasPrefix(n, "UTC") {
		return n
	}
	return shortZone(t)
}

// dateToken formats one run of a format letter.
func dateToken(t time.Time, tok string) string {
	switch tok {
	case "tttt":
		tok = "ttt"
	case "TTTT":
		tok = "TTT"
	}
	if f, ok := dateTokens[tok]; ok {
		return f(t)
	}
	if m, ok := dateMacros[tok]; ok {
		sep, rest, _ := strings.Cut(m[1], " ")
		if sep == "," {
			return dateToken(t, m[0]) + ", " + dateToken(t, rest)
		}
		return dateToken(t, m[0]) + " at " + dateToken(t, strings.TrimPrefix(m[1], " at "))
	}
	return tok
}

// isoDate is the answer's form of a date: YYYY-MM-DD at midnight, else
// the full time with its offset.
func isoDate(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() < 1e6 {
		return formatDate(t, "yyyy-MM-dd")
	}
	return formatDate(t, "yyyy-MM-dd'T'HH:mm:ss.SSSZZ")
}

// formatDuration is luxon's Duration.toFormat: the units the format
// names, each the whole of what is left.
func formatDuration(d Duration, f string) string {
	type tok struct {
		lit  bool
		text string
	}
	var toks []tok
	rs := []rune(f)
	for i := 0; i < len(rs); {
		if rs[i] == '\'' {
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			toks = append(toks, tok{true, string(rs[i+1 : min(j, len(rs))])})
			i = j + 1
			continue
		}
		j := i
		for j < len(rs) && rs[j] == rs[i] {
			j++
		}
		toks = append(toks, tok{false, string(rs[i:j])})
		i = j
	}
	unitOf := map[byte]int{'y': uYears, 'M': uMonths, 'w': uWeeks, 'd': uDays, 'h': uHours, 'm': uMinutes, 's': uSeconds, 'S': uMillis}
	var units uint16
	for _, t := range toks {
		if !t.lit {
			if u, ok := unitOf[t.text[0]]; ok {
				units |= 1 << u
			}
		}
	}
	shifted := d
	if units != 0 {
		shifted = d.shiftTo(units)
	}
	var b strings.Builder
	for _, t := range toks {
		if t.lit {
			b.WriteString(t.text)
			continue
		}
		u, ok := unitOf[t.text[0]]
		if !ok {
			b.WriteString(t.text)
			continue
		}
		v := shifted.v[u]
		n := int(math.Trunc(v)) // luxon floors toward zero by default
		if v < 0 {
			n = -int(math.Floor(-v))
		}
		b.WriteString(pad(n, len(t.text)))
	}
	return b.String()
}
