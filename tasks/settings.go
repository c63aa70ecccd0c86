package tasks

import (
	"encoding/json"
	"strings"
)

// SettingsFile is where the Tasks plugin keeps its settings, relative to
// the vault; PluginID is its id in .obsidian/community-plugins.json.
const (
	SettingsFile = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
	PluginID     = "obsidian-tasks-plugin"
)

// Settings are the Tasks plugin's settings that change which items are
// tasks and what completing one writes. The zero value is not the
// default: use DefaultSettings.
type Settings struct {
	// GlobalFilter, when set (e.g. "#task"), makes only the checklist
	// items that contain it tasks.
	GlobalFilter string `json:"globalFilter"`
	// SetDoneDate adds ✅ <today> to a completed task (on by default).
	SetDoneDate bool `json:"setDoneDate"`
	// SetCreatedDate gives a recurring task's next occurrence ➕ <today>.
	SetCreatedDate bool `json:"setCreatedDate"`
	// RecurrenceOnNextLine puts the next occurrence below the completed
	// task instead of above it.
	RecurrenceOnNextLine bool `json:"recurrenceOnNextLine"`
	// RemoveScheduledDateOnRecurrence leaves ⏳ out of the next occurrence.
	RemoveScheduledDateOnRecurrence bool `json:"removeScheduledDateOnRecurrence"`
}

// DefaultSettings are the plugin's defaults, which also apply when it is
// not installed.
func DefaultSettings() Settings { return Settings{SetDoneDate: true} }

// ReadSettings reads the plugin's data.json; what it lacks, or a file
// that is not JSON, keeps the defaults.
func ReadSettings(data []byte) Settings {
	s := DefaultSettings()
	if json.Unmarshal(data, &s) != nil {
		return DefaultSettings()
	}
	return s
}

// Selected reports whether a checklist item is a task under the global
// filter.
func (s Settings) Selected(t Task) bool {
	return s.GlobalFilter == "" || strings.Contains(t.Text, s.GlobalFilter)
}
