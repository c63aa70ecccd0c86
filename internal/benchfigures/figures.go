// Package benchfigures is the file of the README's opening claims
// (docs/figures.json): scripts/benchrun writes it from the run that
// measured them, and the README's test writes the README's first
// paragraph from it, so a claim changes only with a run. One type serves
// both, so the two cannot drift apart.
package benchfigures

import (
	"encoding/json"
	"os"
)

// Figures are the claims, as one run measured them.
type Figures struct {
	Measured string   `json:"measured"` // the day of the run
	Sizes    []int    `json:"sizes"`    // the side-by-side vaults, in notes
	Peers    []string `json:"peers"`
	// Ranges over the sizes and the peers, median against median.
	Initialize  [2]float64 `json:"initialize_times_sooner"`
	IdleMB      [2]float64 `json:"idle_mb"`
	PeersIdleMB [2]float64 `json:"peers_idle_mb"`
	Read        [2]float64 `json:"read_times_faster"`
	// Search, on a generated vault of SearchNotes notes, against the peers
	// that search.
	SearchNotes int            `json:"search_notes"`
	SearchMS    float64        `json:"search_p50_ms"`
	Search      [2]float64     `json:"search_times_faster"`
	Top3        int            `json:"top3"`
	Queries     int            `json:"queries"`
	PeersTop3   map[string]int `json:"peers_top3"`
}

// Write writes f to file, indented.
func Write(file string, f Figures) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// Read reads the figures in file.
func Read(file string) (Figures, error) {
	var f Figures
	data, err := os.ReadFile(file)
	if err != nil {
		return f, err
	}
	err = json.Unmarshal(data, &f)
	return f, err
}
