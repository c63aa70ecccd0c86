package errors

import (
	"context"
	"fmt"
	"io/fs"
	"testing"
)

func TestFrom(t *testing.T) {
	t.Parallel()
	typed := E(FileNotFound, "no such note")
	tests := []struct {
		err  error
		want Kind
		code Code
	}{
		{typed, FileNotFound, -32003},
		{fmt.Errorf("wrapped: %w", typed), FileNotFound, -32003},
		{context.DeadlineExceeded, Timeout, -32006},
		{fmt.Errorf("run: %w", context.Canceled), Cancelled, -32800},
		{&fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, PermissionDenied, -32005},
		{&fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}, FileNotFound, -32003},
		{fs.ErrExist, FileExists, -32000},
		{New("boom"), Internal, -32603},
	}
	for _, tt := range tests {
		got := From(tt.err)
		if got.Kind != tt.want || got.Code() != tt.code {
			t.Errorf("From(%v) = %s/%d, want %s/%d", tt.err, got.Kind, got.Code(), tt.want, tt.code)
		}
	}
	if From(nil) != nil {
		t.Error("From(nil) != nil")
	}
	if got := From(New("x")).Message; got != "internal error: x" {
		t.Errorf("internal error message = %q, want the cause's text", got)
	}
}

func TestDataAndCodes(t *testing.T) {
	t.Parallel()
	e := E(AmbiguousName, "two notes").With("name", "Plan")
	e.Candidates = []string{"a/Plan.md", "b/Plan.md"}
	d := e.Data()
	if d["errorCode"] != "AMBIGUOUS_NAME" || d["name"] != "Plan" || d["hint"] == "" {
		t.Errorf("Data() = %v", d)
	}
	if c, ok := d["candidates"].([]string); !ok || len(c) != 2 {
		t.Errorf("candidates = %v", d["candidates"])
	}
	if _, ok := d["fields"]; ok {
		t.Error("fields present without field errors")
	}
	want := map[Kind]Code{InvalidParams: -32602, NotRunning: -32001, CLINotFound: -32001, VaultNotFound: -32002,
		FileNotFound: -32003, AmbiguousName: -32004, PermissionDenied: -32005, Timeout: -32006,
		FileExists: -32000, RevisionConflict: -32007, CLIError: -32000, Internal: -32603, Kind("NOPE"): -32603}
	for k, c := range want {
		if k.Code() != c {
			t.Errorf("%s.Code() = %d, want %d", k, k.Code(), c)
		}
	}
	docs := Kinds()
	if len(docs) != len(kinds) || docs[0].Kind != InvalidParams {
		t.Errorf("Kinds() lists %d of %d kinds, first %s", len(docs), len(kinds), docs[0].Kind)
	}
	for _, d := range docs {
		if d.When == "" || d.Action == "" {
			t.Errorf("%s lacks documentation", d.Kind)
		}
	}
}

func TestInvalidFields(t *testing.T) {
	e := InvalidFields(Field{"path", "must not be empty"}, Field{"name", "must not be empty"}, Field{"to", "must be a folder"})
	want := "invalid arguments: `path` and `name`: must not be empty; `to`: must be a folder"
	if e.Kind != InvalidParams || e.Message != want || len(e.Fields) != 3 {
		t.Errorf("InvalidFields = %q (%s, %d fields), want %q", e.Message, e.Kind, len(e.Fields), want)
	}
}
