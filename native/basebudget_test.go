package native

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestBaseOverALongList: a base whose formula calls unique() on a list of
// 40,000 values answers, whole (once quadratic: 46 s of CPU for 20,000,
// no answer in 240 s for 40,000). The time is logged (go test -v -run
// TestBaseOverALongList ./native), not asserted.
func TestBaseOverALongList(t *testing.T) {
	t.Parallel()
	var list strings.Builder
	list.WriteString("---\nitems:\n")
	for i := range 40000 {
		fmt.Fprintf(&list, "  - v%d\n", i)
	}
	list.WriteString("---\n")
	files := map[string]string{"U.base": "formulas:\n  u: 'items.unique().length'\nviews:\n  - type: table\n    name: T\n    order: [formula.u]\n    filters: 'file.ext == \"md\"'\n"}
	for i := range 4 {
		files[fmt.Sprintf("n%02d.md", i)] = list.String()
	}
	v, err := Open(writeVault(t, files))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	start := time.Now()
	res, err := v.QueryBase(t.Context(), note.ByPath("U.base"), "")
	if err != nil || len(res.Rows) == 0 || res.Rows[0].Values["formula.u"] != 40000.0 {
		t.Fatalf("%v rows, %v: %v", len(res.Rows), res.Stopped, err)
	}
	if res.Partial || len(res.Rows) != 4 {
		t.Errorf("%d rows, partial %v: %s", len(res.Rows), res.Partial, res.Stopped)
	}
	t.Logf("4 notes of 40,000 values each: %d rows in %v (partial %v %s)", len(res.Rows), time.Since(start), res.Partial, res.Stopped)
}
