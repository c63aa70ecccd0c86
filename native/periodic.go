package native

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// The Periodic Notes community plugin's settings
// (.obsidian/plugins/periodic-notes/data.json): per period, whether it is
// on, and its folder, file name format and template.
type periodicPlugin struct {
	Daily     periodConfig `json:"daily"`
	Weekly    periodConfig `json:"weekly"`
	Monthly   periodConfig `json:"monthly"`
	Quarterly periodConfig `json:"quarterly"`
	Yearly    periodConfig `json:"yearly"`
}

type periodConfig struct {
	Enabled bool `json:"enabled"`
	dailySettings
}

// defaultFormats are the Periodic Notes plugin's default file names.
var defaultFormats = map[string]string{
	note.Day: "YYYY-MM-DD", note.Week: "gggg-[W]ww", note.Month: "YYYY-MM", note.Quarter: "YYYY-[Q]Q", note.Year: "YYYY",
}

// periodSettings are where the notes of period live, as Obsidian finds
// them: the Periodic Notes plugin's settings for the period when the
// plugin is on and the period enabled; otherwise, for days, the core Daily
// notes settings, and for the other periods the plugin's default format in
// the Daily notes folder, without a template.
func (v *Engine) periodSettings(period string) dailySettings {
	daily := v.dailySettings()
	if c, ok := v.periodicPlugin(period); ok {
		if strings.TrimSpace(c.Format) == "" {
			c.Format = defaultFormats[period]
		}
		c.Folder = strings.Trim(strings.TrimSpace(c.Folder), "/")
		c.Template = strings.Trim(strings.TrimSpace(c.Template), "/")
		return c.dailySettings
	}
	if period == note.Day {
		return daily
	}
	return dailySettings{Folder: daily.Folder, Format: defaultFormats[period]}
}

// periodicPlugin is the plugin's configuration of period, when the plugin
// is on and the period enabled in it.
func (v *Engine) periodicPlugin(period string) (periodConfig, bool) {
	if !v.pluginOn("periodic-notes") {
		return periodConfig{}, false
	}
	var p periodicPlugin
	if data, err := v.readSmall(".obsidian/plugins/periodic-notes/data.json", maxConfig); err != nil || json.Unmarshal(data, &p) != nil {
		return periodConfig{}, false
	}
	c := map[string]periodConfig{note.Day: p.Daily, note.Week: p.Weekly, note.Month: p.Monthly, note.Quarter: p.Quarterly, note.Year: p.Yearly}[period]
	return c, c.Enabled
}

// periodStart is the first day of the period that holds date: its week
// starts on Sunday, as moment's English locale counts weeks, or on Monday
// when the format names ISO weeks (GGGG, WW).
func periodStart(date time.Time, period, format string) time.Time {
	d := time.Date(date.Year(), date.Month(), date.Day(), 0, 0, 0, 0, date.Location())
	switch period {
	case note.Week:
		back := int(d.Weekday())
		if strings.Contains(stripLiterals(format), "GGGG") || strings.Contains(stripLiterals(format), "W") && !strings.Contains(stripLiterals(format), "w") {
			back = (back + 6) % 7
		}
		return d.AddDate(0, 0, -back)
	case note.Month:
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location())
	case note.Quarter:
		return time.Date(d.Year(), (d.Month()-1)/3*3+1, 1, 0, 0, 0, 0, d.Location())
	case note.Year:
		return time.Date(d.Year(), time.January, 1, 0, 0, 0, 0, d.Location())
	}
	return d
}

// stripLiterals is a moment format without its [bracketed] text.
func stripLiterals(f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] == '[' {
			if j := strings.IndexByte(f[i:], ']'); j > 0 {
				i += j
				continue
			}
		}
		b.WriteByte(f[i])
	}
	return b.String()
}

// pluginOn reports whether the community plugin id is enabled in the vault.
func (v *Engine) pluginOn(id string) bool {
	var on []string
	data, err := v.readSmall(".obsidian/community-plugins.json", maxConfig)
	return err == nil && json.Unmarshal(data, &on) == nil && slices.Contains(on, id)
}
