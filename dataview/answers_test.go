package dataview

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"time"
)

// The fixed environment answers are recorded in: the zone, the clock and
// every file's times.
var (
	fixedNow   = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	fixedCtime = time.Date(2026, 10, 15, 9, 30, 0, 0, time.UTC)
	fixedMtime = time.Date(2026, 11, 18, 14, 45, 0, 0, time.UTC)
)

// loadVault indexes a folder as the recorded answers saw it.
func loadVault(t testing.TB, fsys fs.FS) *Vault {
	t.Helper()
	v := NewVault(Options{Location: time.UTC, Now: func() time.Time { return fixedNow }})
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(path.Base(p), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		v.Put(p, string(b), FileStat{Ctime: fixedCtime, Mtime: fixedMtime, Size: int64(len(b))})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type answerCase struct {
	ID     string `json:"id"`
	Query  string `json:"query"`
	Origin string `json:"origin"`
	Kind   string `json:"kind,omitempty"`
	Vault  string `json:"vault,omitempty"`
}

// answer runs one case and gives its answer in the recorded form.
func answer(v *Vault, c answerCase) map[string]any {
	out := map[string]any{"id": c.ID}
	ctx := context.Background()
	if c.Kind == "inline" {
		r, err := v.Inline(ctx, c.Query, c.Origin, Limits{})
		out["type"] = "inline"
		if err != nil {
			out["ok"], out["error"] = false, err.Error()
			return out
		}
		out["ok"], out["headers"], out["values"], out["markdown"] = true, nil, JSON(r.Values), r.Markdown
		return out
	}
	r, err := v.Query(ctx, c.Query, c.Origin, Limits{})
	if err != nil {
		out["ok"], out["error"] = false, err.Error()
		return out
	}
	out["ok"], out["type"], out["values"] = true, r.Type, JSON(r.Values)
	if r.Headers != nil {
		out["headers"] = r.Headers
	} else {
		out["headers"] = nil
	}
	if r.Type == "calendar" {
		out["markdown"] = nil
	} else {
		out["markdown"] = r.Markdown
	}
	return out
}

// TestAnswerCases answers a case file over a vault folder, for comparing
// with answers recorded from Dataview itself: DATAVIEW_VAULT is the
// folder, DATAVIEW_CASES the cases ([{id, query, origin, kind?,
// vault?}]) and DATAVIEW_ANSWERS where the answers go.
func TestAnswerCases(t *testing.T) {
	dir, cases, out := os.Getenv("DATAVIEW_VAULT"), os.Getenv("DATAVIEW_CASES"), os.Getenv("DATAVIEW_ANSWERS")
	if dir == "" || cases == "" || out == "" {
		t.Skip("DATAVIEW_VAULT, DATAVIEW_CASES and DATAVIEW_ANSWERS name a vault, its cases and the answers' file")
	}
	b, err := os.ReadFile(cases)
	if err != nil {
		t.Fatal(err)
	}
	var cs []answerCase
	if err := json.Unmarshal(b, &cs); err != nil {
		var wrapped struct{ Cases []answerCase }
		if err2 := json.Unmarshal(b, &wrapped); err2 != nil {
			t.Fatal(err)
		}
		cs = wrapped.Cases
	}
	vaults := map[string]*Vault{}
	var results []any
	for _, c := range cs {
		v, ok := vaults[c.Vault]
		if !ok {
			v = loadVault(t, os.DirFS(path.Join(dir, c.Vault)))
			vaults[c.Vault] = v
		}
		results = append(results, answer(v, c))
	}
	enc, _ := json.MarshalIndent(map[string]any{"results": results}, "", " ")
	if err := os.WriteFile(out, enc, 0o644); err != nil {
		t.Fatal(err)
	}
}
