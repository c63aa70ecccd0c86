package dataview

import (
	"math"
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Units of a Duration, in luxon's order.
const (
	uYears = iota
	uQuarters
	uMonths
	uWeeks
	uDays
	uHours
	uMinutes
	uSeconds
	uMillis
	nUnits
)

var unitNames = [nUnits]string{"years", "quarters", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds"}

// Duration is a luxon Duration: a value per unit, and which units it has
// (luxon keeps the units it was made with; a unit never set is absent,
// which is not the same as zero when it is shown).
type Duration struct {
	v   [nUnits]float64
	has uint16
}

func durOf(unit int, n float64) Duration {
	var d Duration
	d.v[unit] = n
	d.has = 1 << unit
	return d
}

func (d Duration) set(unit int) bool { return d.has&(1<<unit) != 0 }

// casual is luxon's casual conversion matrix: a year is 365 days, a
// month 30, a quarter 91.
var casual = func() [nUnits][nUnits]float64 {
	var m [nUnits][nUnits]float64
	ms := [nUnits]float64{365 * 864e5, 91 * 864e5, 30 * 864e5, 7 * 864e5, 864e5, 36e5, 6e4, 1e3, 1}
	for i := range nUnits {
		for j := i + 1; j < nUnits; j++ {
			m[i][j] = ms[i] / ms[j]
		}
	}
	m[uYears][uQuarters], m[uYears][uMonths], m[uYears][uWeeks] = 4, 12, 52
	m[uQuarters][uMonths], m[uQuarters][uWeeks] = 3, 13
	m[uMonths][uWeeks] = 4
	return m
}()

func (d Duration) millis() float64 {
	sum := d.v[uMillis]
	for u := uSeconds; u >= 0; u-- {
		if d.v[u] != 0 {
			sum += d.v[u] * casual[u][uMillis]
		}
	}
	return sum
}

// normalizeValues is luxon's: carry overflow up, then fractions down.
func normalizeValues(d *Duration) {
	factor := 1.0
	if d.millis() < 0 {
		factor = -1
	}
	prev := -1
	for u := nUnits - 1; u >= 0; u-- {
		if !d.set(u) {
			continue
		}
		if prev >= 0 {
			pv := d.v[prev] * factor
			conv := casual[u][prev]
			roll := math.Floor(pv / conv)
			d.v[u] += roll * factor
			d.v[prev] -= roll * conv * factor
		}
		prev = u
	}
	prev = -1
	for u := range nUnits {
		if !d.set(u) {
			continue
		}
		if prev >= 0 {
			frac := math.Mod(d.v[prev], 1)
			d.v[prev] -= frac
			d.v[u] += frac * casual[prev][u]
		}
		prev = u
	}
}

func (d Duration) normalize() Duration { normalizeValues(&d); return d }

// shiftTo is luxon's shiftTo(units...).
func (d Duration) shiftTo(units uint16) Duration {
	var built Duration
	var acc [nUnits]float64
	var accHas uint16
	last := -1
	for u := range nUnits {
		if units&(1<<u) != 0 {
			last = u
			own := 0.0
			for a := range nUnits {
				if accHas&(1<<a) != 0 {
					own += casual[a][u] * acc[a]
					acc[a] = 0
				}
			}
			if d.set(u) {
				own += d.v[u]
			}
			i := math.Trunc(own)
			built.v[u] = i
			built.has |= 1 << u
			acc[u] = (own*1e3 - i*1e3) / 1e3
			accHas |= 1 << u
		} else if d.set(u) {
			acc[u] = d.v[u]
			accHas |= 1 << u
		}
	}
	if last < 0 {
		return d
	}
	for a := range nUnits {
		if accHas&(1<<a) != 0 && acc[a] != 0 {
			if a == last {
				built.v[last] += acc[a]
			} else {
				built.v[last] += acc[a] / casual[last][a]
			}
		}
	}
	normalizeValues(&built)
	return built
}

const allButQuarters uint16 = (1<<nUnits - 1) &^ (1 << uQuarters)

// normalizeDuration is Dataview's: shiftToAll, then normalize.
func normalizeDuration(d Duration) Duration { return d.shiftTo(allButQuarters).normalize() }

func (d Duration) as(unit string) float64 {
	u := unitIndex(unit)
	if u < 0 {
		return math.NaN()
	}
	return d.shiftTo(1 << u).v[u]
}

func unitIndex(unit string) int {
	unit = strings.ToLower(unit)
	for i, n := range unitNames {
		if unit == n || unit+"s" == n {
			return i
		}
	}
	return -1
}

func (d Duration) plus(o Duration) Duration {
	var r Duration
	for u := range nUnits {
		if d.set(u) || o.set(u) {
			r.v[u] = d.v[u] + o.v[u]
			r.has |= 1 << u
		}
	}
	return r
}

func (d Duration) negate() Duration {
	for u := range nUnits {
		if d.v[u] != 0 {
			d.v[u] = -d.v[u]
		}
	}
	return d
}

func (d Duration) mapUnits(f func(float64) float64) Duration {
	for u := range nUnits {
		if d.set(u) {
			d.v[u] = f(d.v[u])
		}
	}
	return d
}

func (d Duration) equals(o Duration) bool {
	for u := range nUnits {
		if d.v[u] != o.v[u] {
			return false
		}
	}
	return true
}

// ISO is luxon's toISO.
func (d Duration) ISO() string {
	s := "P"
	if d.v[uYears] != 0 {
		s += jsNumber(d.v[uYears]) + "Y"
	}
	if d.v[uMonths] != 0 || d.v[uQuarters] != 0 {
		s += jsNumber(d.v[uMonths]+d.v[uQuarters]*3) + "M"
	}
	if d.v[uWeeks] != 0 {
		s += jsNumber(d.v[uWeeks]) + "W"
	}
	if d.v[uDays] != 0 {
		s += jsNumber(d.v[uDays]) + "D"
	}
	if d.v[uHours] != 0 || d.v[uMinutes] != 0 || d.v[uSeconds] != 0 || d.v[uMillis] != 0 {
		s += "T"
	}
	if d.v[uHours] != 0 {
		s += jsNumber(d.v[uHours]) + "H"
	}
	if d.v[uMinutes] != 0 {
		s += jsNumber(d.v[uMinutes]) + "M"
	}
	if d.v[uSeconds] != 0 || d.v[uMillis] != 0 {
		s += jsNumber(roundTo(d.v[uSeconds]+d.v[uMillis]/1e3, 3)) + "S"
	}
	if s == "P" {
		s += "T0S"
	}
	return s
}

func roundTo(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}

// human is Dataview's renderMinimalDuration: the non-zero units, long
// names, "3 hours, 20 minutes" (luxon's toHuman in en-US).
func (d Duration) human() string {
	d = normalizeDuration(d)
	var parts []string
	for u := range nUnits {
		if !d.set(u) || d.v[u] == 0 {
			continue
		}
		parts = append(parts, humanUnit(d.v[u], unitNames[u]))
	}
	return strings.Join(parts, ", ")
}

// humanUnit is Intl.NumberFormat's long unit style in en-US.
func humanUnit(n float64, unit string) string {
	r := roundTo(n, 3)
	num := groupThousands(jsNumber(r))
	name := unit
	if r == 1 {
		name = strings.TrimSuffix(unit, "s")
	}
	return num + " " + name
}

// groupThousands puts en-US grouping commas in an integer part.
func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) > 3 && !strings.ContainsAny(intPart, "e") {
		var b strings.Builder
		lead := len(intPart) % 3
		if lead > 0 {
			b.WriteString(intPart[:lead])
		}
		for i := lead; i < len(intPart); i += 3 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(intPart[i : i+3])
		}
		intPart = b.String()
	}
	if hasFrac {
		intPart += "." + frac
	}
	if neg {
		return "-" + intPart
	}
	return intPart
}

// localeCompare is String.prototype.localeCompare in en-US: ICU's
// collation, tertiary strength.
func localeCompare(a, b string) int {
	if a == b {
		return 0
	}
	c := collators.Get().(*collate.Collator)
	defer collators.Put(c)
	return c.CompareString(a, b)
}

var collators = sync.Pool{New: func() any { return collate.New(language.AmericanEnglish) }}
