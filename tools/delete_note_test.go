package tools

import (
	"context"
	"slices"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestDeleteNote(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "to trash by default", args: `{"path":"Old.md"}`, wantCall: "Delete path=Old.md name= permanent=false",
			wantData: `{"success":true,"data":{"path":"Old.md","permanent":false}}`},
		{name: "ambiguous deletes nothing", args: `{"name":"Old"}`, wantCall: "Delete path= name=Old permanent=false",
			err: &errors.Error{Kind: errors.AmbiguousName, Message: "ambiguous", Candidates: []string{"a/Old.md", "b/Old.md"}}, wantKind: errors.AmbiguousName},
	}
	runCases(t, "obsidian_delete_note", append(cases, withCall(locatorCases(""), "Delete path=a.md name= permanent=false")...))
}

// asker answers confirmations as told, and records the questions.
type asker struct {
	can, yes  bool
	questions []string
}

func (a *asker) Confirm(_ context.Context, _, msg string) (bool, bool, error) {
	a.questions = append(a.questions, msg)
	return a.can && a.yes, a.can, nil
}

// TestPermanentDeleteIsConfirmed: by the user when the client can ask,
// else by confirm_path; without either, nothing is deleted.
func TestPermanentDeleteIsConfirmed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, args string
		can, yes   bool
		wantCalls  []string
		wantKind   errors.Kind
		wantFields []string
		asked      bool
	}{
		{name: "confirm_path", args: `{"name":"Old","permanent":true,"confirm_path":"Resolved/Old.md"}`,
			wantCalls: []string{"FileInfo path= name=Old", "Delete path=Resolved/Old.md name= permanent=true"}},
		{name: "wrong confirm_path", args: `{"name":"Old","permanent":true,"confirm_path":"Other.md"}`, can: true, yes: true,
			wantCalls: []string{"FileInfo path= name=Old"}, wantKind: errors.InvalidParams, wantFields: []string{"confirm_path"}},
		{name: "client cannot ask", args: `{"path":"Old.md","permanent":true}`,
			wantCalls: []string{"FileInfo path=Old.md name="}, wantKind: errors.InvalidParams, wantFields: []string{"confirm_path"}, asked: true},
		{name: "user says yes", args: `{"path":"Old.md","permanent":true}`, can: true, yes: true, asked: true,
			wantCalls: []string{"FileInfo path=Old.md name=", "Delete path=Old.md name= permanent=true"}},
		{name: "user says no", args: `{"path":"Old.md","permanent":true}`, can: true, asked: true,
			wantCalls: []string{"FileInfo path=Old.md name="}, wantKind: errors.PermissionDenied},
		{name: "trash needs no confirmation", args: `{"path":"Old.md"}`, wantCalls: []string{"Delete path=Old.md name= permanent=false"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fb, ask := &fakeBackend{}, &asker{can: tc.can, yes: tc.yes}
			v := on(fb)
			v.Ask = ask
			var st = findIn(t, All(v), "obsidian_delete_note")
			_, err := call(t, st, tc.args)
			if !slices.Equal(fb.calls, tc.wantCalls) {
				t.Errorf("calls = %q, want %q", fb.calls, tc.wantCalls)
			}
			if tc.wantKind != "" {
				checkErr(t, err, tc.wantKind, tc.wantFields, "")
			} else if err != nil {
				t.Fatal(err)
			}
			if asked := len(ask.questions) > 0; asked != tc.asked {
				t.Errorf("asked = %v (%q), want %v", asked, ask.questions, tc.asked)
			} else if asked && ask.questions[0] != "Delete Old.md (42 bytes) permanently? It will not go to the trash and cannot be restored." {
				t.Errorf("question = %q", ask.questions[0])
			}
		})
	}
}
