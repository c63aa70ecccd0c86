package dataview

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/evalbudget"
)

// fuzzVault is a few notes with fields of every type, lists and tasks.
var fuzzVault = func() *Vault {
	v := NewVault(Options{Location: time.UTC, Now: func() time.Time { return fixedNow }})
	st := FileStat{Ctime: fixedCtime, Mtime: fixedMtime}
	v.Put("A.md", "---\ntags: [x, y/z]\nn: 3\nd: 2026-01-02\nl: [1, \"two\", [[B]]]\n---\nk:: v\n- [ ] t [due:: 2026-12-01]\n    - [x] u ✅ 2026-11-01\n- item (w:: 2h)\n", st)
	v.Put("B.md", "#x [[A]]\nn:: 5\nobj:: {a: 1}\n", st)
	v.Put("C/D.md", "---\nn: null\n---\n", st)
	return v
}()

// FuzzQuery: any query text, DQL or inline, is answered or refused with
// a parse, query or bound error, within a small budget and a deadline,
// never a crash or a hang.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"TABLE n, d, l FROM #x WHERE n > 2 SORT n DESC",
		"LIST r FROM \"\" FLATTEN l AS r GROUP BY typeof(r)",
		"TASK WHERE !completed GROUP BY file.link",
		"CALENDAR d",
		"TABLE map(l, (x) => x + 1), filter(file.tasks, (t) => t.due) FROM [[A]] OR outgoing([[B]])",
		"=sum(map([1,2,3], (x) => x * 2))",
		"=regexreplace(\"abc\", \"(?<=a)b\", \"x\")",
		"=dateformat(date(today) + dur(2 weeks), \"DDD\")",
		"LIST WITHOUT ID " + strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150),
		"TABLE FROM",
		"=((a) => a(a))((a) => a(a))",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		lim := Limits{Steps: 200_000, Time: 2 * time.Second}
		var err error
		if rest, ok := strings.CutPrefix(q, "="); ok {
			_, err = fuzzVault.Inline(ctx, rest, "A.md", lim)
		} else {
			_, err = fuzzVault.Query(ctx, q, "A.md", lim)
		}
		var pe *ParseError
		var qe *QueryError
		var be *BoundError
		if err != nil && !errors.As(err, &pe) && !errors.As(err, &qe) && !errors.As(err, &be) && !evalbudget.IsStopped(err) {
			t.Fatalf("%q: an error of no known kind: %T %v", q, err, err)
		}
	})
}

// TestBounded: what could take the server's memory or time is refused
// or stopped, with the reason: deep nesting, a long query, a lambda
// calling itself, FLATTEN past the rows' bound, a list built without
// end, a budget run out, a regex JavaScript has and RE2 has not.
func TestBounded(t *testing.T) {
	ctx := context.Background()
	lim := Limits{Steps: 2_000_000, Time: 5 * time.Second}
	for _, c := range []struct {
		name, q, want string
		inline        bool
	}{
		{"deep nesting", "LIST " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200), "nests more than 100 deep", false},
		{"a long query", "LIST WHERE " + strings.Repeat("n = 1 OR ", 3000) + "true", "over the limit of", false},
		{"a variable is no function (as in Dataview)", "((a) => a(a))((a) => a(a))", "Unrecognized function name 'a'", true},
		{"look-behind", `regexreplace("abc", "(?<=a)b", "x")`, "look-behind", true},
		{"a back-reference", `regextest("(a)\\1", "aa")`, "back-reference", true},
		{"text without end", `"x" * 100000000`, "is refused", true},
	} {
		var err error
		if c.inline {
			_, err = fuzzVault.Inline(ctx, c.q, "A.md", lim)
		} else {
			_, err = fuzzVault.Query(ctx, c.q, "A.md", lim)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// A budget run out answers what was done, flagged.
	res, err := fuzzVault.Query(ctx, `LIST FROM "" FLATTEN [1,2,3,4,5,6,7,8,9,10] AS a WHERE map([1,2,3,4,5,6,7,8,9,10], (x) => x * a)`, "", Limits{Steps: 100, Time: time.Second})
	if err != nil || !res.Partial || !strings.Contains(res.Stopped, "budget of 100 steps") {
		t.Errorf("over budget: %+v %v", res, err)
	}
	// FLATTEN past the rows' bound stops, flagged.
	big := NewVault(Options{Location: time.UTC, MaxRows: 50_000})
	big.Put("Big.md", "---\nn: 2000\n---\n", FileStat{})
	res, err = big.Query(ctx, `LIST x FROM "" FLATTEN [1,2,3,4,5,6,7,8,9,10] AS a FLATTEN [1,2,3,4,5,6,7,8,9,10] AS b FLATTEN [1,2,3,4,5,6,7,8,9,10] AS c FLATTEN [1,2,3,4,5,6,7,8,9,10] AS d FLATTEN [1,2,3,4,5,6,7,8,9,10] AS e FLATTEN [1,2,3,4,5,6,7,8,9,10] AS f FLATTEN [1,2,3,4,5,6,7,8,9,10] AS x`, "", Limits{})
	if err != nil || !res.Partial || !strings.Contains(res.Stopped, "more than 50000 rows") {
		t.Errorf("FLATTEN without end: partial %v %q %v", res != nil && res.Partial, res.Stopped, err)
	}
	// A cancelled call stops at once.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res, err = fuzzVault.Query(cctx, `LIST FROM "" FLATTEN [1,2,3] AS a WHERE length(map([1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20], (x) => x)) > 0`, "", Limits{})
	if err != nil || !res.Partial || !strings.Contains(res.Stopped, "cancelled") {
		t.Logf("cancelled: %+v %v", res, err)
	}
}

// FuzzPage: any note text is read into a page (and its inline fields
// listed) without a crash, and a query over it answers or refuses.
func FuzzPage(f *testing.F) {
	f.Add("---\ntags: [a]\nx: [[B]]\n---\n# H\nk:: v\n- [ ] t [due:: 2026-01-01] 📅 2026-01-02\n    - sub (a:: 1)\n> [!note] q:: 2\n```\nc:: 3\n```\n")
	f.Add("- a\n\t- b\n  - c\n1. d\n   - [x] e ✅ 2020-01-01\n")
	f.Add("---\na: &x [*x]\n---\n[[\n(::)\n[::]\n**K**:: \n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<16 {
			return
		}
		v := NewVault(Options{Location: time.UTC, Now: func() time.Time { return fixedNow }})
		// The page kept (encoded: flags, the dictionary, lengths) reads
		// back as it was parsed.
		st := FileStat{Mtime: fixedNow, Ctime: fixedNow}
		if parsed, kept := dumpMeta(v.g.parsePage("F/N.md", text, st)), dumpMeta(v.ParsePage("F/N.md", text, st).meta(time.UTC, nil)); parsed != kept {
			t.Fatalf("parsed %s\nkept   %s", parsed, kept)
		}
		v.Put("N.md", text, FileStat{})
		v.Put("B.md", "b", FileStat{})
		_ = ReadInlineFields(text, time.UTC)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, q := range []string{`TABLE file.lists, file.tasks, file.outlinks, file.tags FROM ""`, `TASK`} {
			if _, err := v.Query(ctx, q, "N.md", Limits{Steps: 1_000_000, Time: 2 * time.Second}); err != nil && !evalbudget.IsStopped(err) {
				var qe *QueryError
				if !errors.As(err, &qe) {
					t.Fatalf("%q: %v", q, err)
				}
			}
		}
	})
}
