package dataview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReplay answers testdata/replay/cases.json and compares the answers
// with testdata/replay/answers.json, which Dataview's own engine (0.5.70)
// gave for the same cases on the same notes, run at the same fixed time
// (answers_test.go). The notes: dataview-test-vault/ is Dataview's own
// test vault (MIT; dataview-test-vault.SOURCE.txt); notes/ was written for this test.
// Rows a query gives in no fixed order are compared as multisets, as
// Dataview's order there depends on the vault's walk.
func TestReplay(t *testing.T) {
	dir := filepath.Join("testdata", "replay")
	var cases []answerCase
	readJSON(t, filepath.Join(dir, "cases.json"), &cases)
	var recorded struct {
		Results []map[string]any `json:"results"`
	}
	readJSON(t, filepath.Join(dir, "answers.json"), &recorded)
	want := map[string]map[string]any{}
	for _, r := range recorded.Results {
		want[r["id"].(string)] = r
	}
	vaults := map[string]*Vault{}
	passed := 0
	for _, c := range cases {
		v, ok := vaults[c.Vault]
		if !ok {
			v = loadVault(t, os.DirFS(filepath.Join(dir, c.Vault)))
			vaults[c.Vault] = v
		}
		exp, ok := want[c.ID]
		if !ok {
			t.Errorf("%s: no recorded answer", c.ID)
			continue
		}
		// Twice: the second answer comes from the parsed query kept by
		// the first, which running it must not have changed.
		for pass := range 2 {
			got := roundTrip(t, answer(v, c))
			if why := compareAnswer(exp, got); why != "" {
				t.Errorf("%s (%s), pass %d: %s", c.ID, strings.ReplaceAll(c.Query, "\n", " ⏎ "), pass+1, why)
				break
			}
			if pass == 1 {
				passed++
			}
		}
	}
	if passed == 0 || passed != len(cases) {
		t.Errorf("%d of %d cases answered as Dataview does", passed, len(cases))
	}
}

func readJSON(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// roundTrip makes an answer plain JSON values, as the recorded ones are.
func roundTrip(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func canonJSON(v any) string {
	b, _ := json.Marshal(v) // encoding/json sorts object keys
	return string(b)
}

// multiset sorts every list, recursively, by its items' JSON.
func multiset(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = multiset(e)
		}
		slices.SortFunc(out, func(a, b any) int { return strings.Compare(canonJSON(a), canonJSON(b)) })
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = multiset(e)
		}
		return out
	}
	return v
}

func lineSet(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// compareAnswer is the recorded answers' rule: a refusal must be a
// refusal; else the type, headers, values (in order, or as multisets
// where the order is not fixed, or as the alternative run where even the
// rows depend on the walk) and the Markdown agree.
func compareAnswer(exp, got map[string]any) string {
	if exp["ok"] != true {
		if got["ok"] == true {
			return "Dataview refuses it (" + toText(exp["error"], false) + "); answered"
		}
		return ""
	}
	if got["ok"] != true {
		return "refused: " + toText(got["error"], false)
	}
	if exp["type"] != got["type"] || canonJSON(exp["headers"]) != canonJSON(got["headers"]) {
		return "type or headers: want " + canonJSON([]any{exp["type"], exp["headers"]}) + ", got " + canonJSON([]any{got["type"], got["headers"]})
	}
	order, _ := exp["order"].(string)
	alts := []any{exp["values"]}
	mds := []any{exp["markdown"]}
	if alt, ok := exp["alt"].(map[string]any); ok && order == "unstable" {
		alts = append(alts, alt["values"])
		mds = append(mds, alt["markdown"])
	}
	ok := false
	for _, a := range alts {
		if canonJSON(a) == canonJSON(got["values"]) || (order != "exact" && canonJSON(multiset(a)) == canonJSON(multiset(got["values"]))) {
			ok = true
		}
	}
	if !ok {
		return "values: want " + canonJSON(exp["values"]) + "\n got " + canonJSON(got["values"])
	}
	if exp["markdown"] == nil {
		return ""
	}
	gm, _ := got["markdown"].(string)
	for _, m := range mds {
		em, _ := m.(string)
		if em == gm || (order != "exact" && lineSet(em) == lineSet(gm)) {
			return ""
		}
	}
	return "markdown: want\n" + toText(exp["markdown"], false) + "\n got\n" + gm
}
