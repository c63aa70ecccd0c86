package dataview

import (
	"reflect"
	"testing"
)

// Ported from Dataview's src/test/parse/parse.query.test.ts.

func parseQueryT(t *testing.T, text string) *query {
	t.Helper()
	return mustParse(t, testGrammar.query, text).(*query)
}

func TestPortedQueryParse(t *testing.T) {
	const pq = "parse/parse.query.test.ts › "
	g := testGrammar
	if _, err := parseAll(g.queryType, "vehicle"); err == nil {
		t.Errorf(pq + "Parse Query Type: vehicle parsed")
	}
	for _, in := range []string{"list", "lIsT"} {
		if got := mustParse(t, g.queryType, in); got != "list" {
			t.Errorf(pq+"Parse Query Type: %q = %v", in, got)
		}
	}
	q := parseQueryT(t, "list from [[Stuff]]")
	if want := (header{kind: "list", showID: true}); !reflect.DeepEqual(q.header, want) || !reflect.DeepEqual(q.source, linkSource{"Stuff", true}) || len(q.steps) != 0 {
		t.Errorf(pq+"Link Source: %+v", q)
	}
	for in, want := range map[string]string{"// This is a comment": "This is a comment", "//This is a comment": "This is a comment", "//": "", "// ": ""} {
		if got := mustParse(t, g.comment, in); got != want {
			t.Errorf(pq+"Comments › Valid Comments: %q = %q", in, got)
		}
	}
	for _, in := range []string{`"// This is not a comment"`, `"The is before the comment // This is not a comment"`} {
		_, err := parseAll(g.comment, in)
		if err == nil || !reflect.DeepEqual(err.Expected, []string{"Not a comment"}) {
			t.Errorf(pq+"Comments › Invalid comment in quotes: %q: %v", in, err)
		}
	}
	for _, c := range []struct {
		from, in string
		want     namedField
	}{
		{pq + "Named Fields › Explicit", "time-played", namedField{"time-played", fVar("time-played")}},
		{pq + "Named Fields › Explicit", "(time-played + 4) as something", namedField{"something", fBin(fVar("time-played"), "+", fLit(4))}},
		{pq + "Named Fields › Implicit", "8 + 4", namedField{"8 + 4", fBin(fLit(8), "+", fLit(4))}},
	} {
		if got := mustParse(t, g.namedField, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q = %#v", c.from, c.in, got)
		}
	}
	if got := mustParse(t, g.sortField, "time-played DESC"); !reflect.DeepEqual(got, sortField{fVar("time-played"), true}) {
		t.Errorf(pq+"Sort Fields: %#v", got)
	}
	if got := mustParse(t, g.sortField, `(time-played - "where")`); !reflect.DeepEqual(got, sortField{fBin(fVar("time-played"), "-", fLit("where")), false}) {
		t.Errorf(pq+"Sort Fields: %#v", got)
	}
	// Just TASK / LIST / TABLE, in both cases, with trailing space.
	for _, kind := range []string{"task", "list", "table"} {
		for _, name := range []string{kind, map[string]string{"task": "TASK", "list": "LIST", "table": "TABLE"}[kind]} {
			for _, suffix := range []string{"", " ", "\n", " \n", "\n "} {
				if q := parseQueryT(t, name+suffix); q.header.kind != kind {
					t.Errorf(pq+"Just %s: %q = %s", name, name+suffix, q.header.kind)
				}
			}
		}
	}
	if q := parseQueryT(t, "task from #games"); q.header.kind != "task" || !reflect.DeepEqual(q.source, tagSource{"#games"}) {
		t.Errorf(pq+"Task Queries › Task query with no fields: %+v", q)
	}
	if q := parseQueryT(t, "LIST file.name FROM #games"); q.header.kind != "list" || !reflect.DeepEqual(q.header.format, fIndexVariable("file.name")) {
		t.Errorf(pq+"List Queries › With Format: %+v", q)
	}
	if q := parseQueryT(t, "LIST WITHOUT ID file.name FROM #games"); q.header.showID || !reflect.DeepEqual(q.header.format, fIndexVariable("file.name")) {
		t.Errorf(pq+"List Queries › WITHOUT ID: %+v", q)
	}
	q = parseQueryT(t, "TABLE time-played, rating, length FROM #games")
	if want := []namedField{{"time-played", fVar("time-played")}, {"rating", fVar("rating")}, {"length", fVar("length")}}; !reflect.DeepEqual(q.header.fields, want) ||
		!reflect.DeepEqual(q.source, tagSource{"#games"}) || !q.header.showID {
		t.Errorf(pq+"Table Queries › Minimal Query: %+v", q)
	}
	games := binSource{"|", tagSource{"#games"}, tagSource{"#gaming"}}
	for name, text := range map[string]string{
		"Fat Query": "TABLE (time-played + 100) as long, rating as rate, length\n" +
			"FROM #games or #gaming\n" +
			"WHERE long > 150 and rate - 10 < 40\n" +
			"SORT length + 8 + 4 DESCENDING, long ASC",
		"Commented Query": "// This is a comment at the beginning\n" +
			"TABLE (time-played + 100) as long, rating as rate, length\n" +
			"// This is a comment\n" +
			"// This is a second comment\n" +
			"FROM #games or #gaming  // This is an inline comment\n" +
			"// This is a third comment\n" +
			"WHERE long > 150 and rate - 10 < 40\n" +
			"// This is a fourth comment\n" +
			"\n" +
			"   // This is a comment with whitespace prior\n" +
			"SORT length + 8 + 4 DESCENDING, long ASC\n" +
			"// This is a comment at the end",
	} {
		q := parseQueryT(t, text)
		if q.header.kind != "table" || len(q.header.fields) != 3 || !reflect.DeepEqual(q.source, games) || len(q.steps) < 2 || len(q.steps[1].sorts) != 2 {
			t.Errorf(pq+"Table Queries › %s: %+v", name, q)
		}
	}
	for _, text := range []string{"TABLE WITHOUT ID name, value", "TABLE    WITHOUT     ID   name, value"} {
		if q := parseQueryT(t, text); q.header.kind != "table" || q.header.showID {
			t.Errorf(pq+"Table Queries › WITHOUT ID: %q: %+v", text, q)
		}
	}
	q = parseQueryT(t, "CALENDAR my-date FROM #games\nWHERE foo > 100")
	if q.header.kind != "calendar" || !reflect.DeepEqual(q.header.fields, []namedField{{"my-date", fVar("my-date")}}) || !reflect.DeepEqual(q.source, tagSource{"#games"}) {
		t.Errorf(pq+"Calendar Queries › Minimal Query: %+v", q)
	}
}
