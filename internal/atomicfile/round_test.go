package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// stepRound is a round appending "ours" to n.md, which holds content, in
// a folder of its own; its steps are run by the test, one by one.
func stepRound(t *testing.T, content string) (r *round, dir string) {
	t.Helper()
	root, dir := openRoot(t)
	if err := os.WriteFile(filepath.Join(dir, "n.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	change := appendLine("ours")
	r = &round{root: root, name: "n.md", change: change, changep: &change, res: &Updated{}}
	t.Cleanup(r.close)
	return r, dir
}

// steps runs r's steps in order up to and including last, failing t if
// one ends the round or fails before it.
func steps(t *testing.T, r *round, last string) {
	t.Helper()
	for _, s := range []struct {
		name string
		run  func() (verdict, error)
	}{{"read", r.read}, {"apply", r.apply}, {"write", r.write}, {"exchange", r.exchange}, {"verify", r.verify}} {
		if v, err := s.run(); v != goOn || err != nil {
			t.Fatalf("%s: %v, %v; want it to go on", s.name, v, err)
		}
		if s.name == last {
			return
		}
	}
}

func content(t *testing.T, dir string) string {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(dir, "n.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// TestRoundRead: read holds the whole file and a handle on it; a file
// Update must not replace is refused.
func TestRoundRead(t *testing.T) {
	r, _ := stepRound(t, "a\nb\n")
	steps(t, r, "read")
	if string(r.cur) != "a\nb\n" || r.f == nil || r.fi == nil {
		t.Errorf("read %q (file %v)", r.cur, r.f)
	}
	if runtime.GOOS != "windows" { // the permission bits are POSIX's
		ro, dir := stepRound(t, "x\n")
		if err := os.Chmod(filepath.Join(dir, "n.md"), 0o444); err != nil {
			t.Fatal(err)
		}
		if _, err := ro.read(); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("a read-only file: %v, want a permission error", err)
		}
	}
	dirRound, dir := stepRound(t, "x\n")
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	dirRound.name = "folder"
	if _, err := dirRound.read(); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v, want ErrNotRegular", err)
	}
}

// TestRoundApply: apply runs the change on what was read; a change that
// changes nothing ends the round done, one that fails ends it with its
// error.
func TestRoundApply(t *testing.T) {
	r, _ := stepRound(t, "a\n")
	steps(t, r, "apply")
	if string(r.next) != "a\nours\n" || string(r.res.Old) != "a\n" || string(r.res.New) != "a\nours\n" {
		t.Errorf("next %q, Updated %q -> %q", r.next, r.res.Old, r.res.New)
	}
	same, _ := stepRound(t, "a\n")
	same.change = func(b []byte) ([]byte, error) { return b, nil }
	steps(t, same, "read")
	if v, err := same.apply(); v != done || err != nil {
		t.Errorf("a change that changes nothing: %v, %v; want done", v, err)
	}
	failing, _ := stepRound(t, "a\n")
	boom := errors.New("boom")
	failing.change = func([]byte) ([]byte, error) { return nil, boom }
	steps(t, failing, "read")
	if _, err := failing.apply(); !errors.Is(err, boom) {
		t.Errorf("a failing change: %v, want its error", err)
	}
}

// TestRoundWrite: write puts the new content in a temporary file beside
// the note, which the round removes when it ends before the swap.
func TestRoundWrite(t *testing.T) {
	r, dir := stepRound(t, "a\n")
	steps(t, r, "write")
	if got, err := os.ReadFile(filepath.Join(dir, r.tmp)); err != nil || string(got) != "a\nours\n" || filepath.Dir(r.tmp) != "." {
		t.Errorf("temporary file %s: %q, %v", r.tmp, got, err)
	}
	if content(t, dir) != "a\n" {
		t.Errorf("the note changed before the swap: %q", content(t, dir))
	}
	r.close()
	noTemps(t, dir)
}

// TestRoundExchange: a clean exchange puts ours at the name; a note
// changed since it was read is left as it is, and the round runs again.
func TestRoundExchange(t *testing.T) {
	withoutLeases(t) // with a lease, an outside write waits for the round
	r, dir := stepRound(t, "a\n")
	steps(t, r, "exchange")
	if content(t, dir) != "a\nours\n" || r.exchanged != exchanges {
		t.Errorf("after the exchange: %q (exchanged %v)", content(t, dir), r.exchanged)
	}
	changed, dir2 := stepRound(t, "a\n")
	steps(t, changed, "write")
	outside(t, filepath.Join(dir2, "n.md"), "a\nfrom outside\n", true)
	if v, err := changed.exchange(); v != again || err != nil {
		t.Errorf("a note changed since the read: %v, %v; want again", v, err)
	}
	if content(t, dir2) != "a\nfrom outside\n" {
		t.Errorf("the outside write was touched: %q", content(t, dir2))
	}
	changed.close()
	noTemps(t, dir2)
}

// TestRoundVerifyClean: a clean exchange is done, ours at the name, no
// file of the round left behind once it ends.
func TestRoundVerifyClean(t *testing.T) {
	withoutLeases(t) // the lateSave path: no lease, the displaced file unchanged
	r, dir := stepRound(t, "a\n")
	steps(t, r, "exchange")
	if v, err := r.verify(); v != done || err != nil {
		t.Fatalf("verify: %v, %v; want done", v, err)
	}
	r.close()
	if content(t, dir) != "a\nours\n" {
		t.Errorf("note %q", content(t, dir))
	}
	noTemps(t, dir)
}

// TestRoundPark: under a lease a clean exchange is done with the file
// displaced parked, watched for a late writer, and the note is ours.
func TestRoundPark(t *testing.T) {
	r, dir := stepRound(t, "a\n")
	r.pub = &Published{}
	var mu sync.Mutex
	r.pub.SetLock(func() (func(), error) { mu.Lock(); return mu.Unlock, nil }, func(string, error) {})
	if err := os.Mkdir(filepath.Join(dir, "parked"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.pub.SetParking("parked")
	steps(t, r, "exchange")
	if r.lease != leaseHeld {
		t.Skip("no lease on this system or file system: park is the lease's step")
	}
	if v, err := r.verify(); v != done || err != nil {
		t.Fatalf("verify: %v, %v; want done", v, err)
	}
	if !r.kept || r.removeTmp {
		t.Errorf("the displaced file was not handed to the watch (kept %v, removeTmp %v)", r.kept, r.removeTmp)
	}
	if parked, _ := os.ReadDir(filepath.Join(dir, "parked")); len(parked) != 1 {
		t.Errorf("%d files parked, want the displaced one", len(parked))
	}
	r.pub.Flush()
	if content(t, dir) != "a\nours\n" {
		t.Errorf("note %q", content(t, dir))
	}
	noTemps(t, dir)
}

// TestRoundMerge: another program's save renamed over the note between
// the check and the swap is put back at the name by the swap back, as
// its writer left it, and the next round's change carries it and ours.
func TestRoundMerge(t *testing.T) {
	if !exchanges || runtime.GOOS == "windows" {
		t.Skip("a rename in that window is the documented gap where there is no exchange")
	}
	withoutLeases(t)
	r, dir := stepRound(t, "a\n")
	steps(t, r, "write")
	writeBeforeSwap(t, filepath.Join(dir, "n.md"), "a\nfrom outside\n", false)
	if v, err := r.exchange(); v != goOn || err != nil || !r.exchanged {
		t.Fatalf("exchange: %v, %v (exchanged %v)", v, err, r.exchanged)
	}
	if v, err := r.verify(); v != again || err != nil {
		t.Fatalf("verify: %v, %v; want again, to merge", v, err)
	}
	if content(t, dir) != "a\nfrom outside\n" {
		t.Errorf("their save is not back at the name: %q", content(t, dir))
	}
	next, err := (*r.changep)([]byte(content(t, dir)))
	if err != nil || string(next) != "a\nfrom outside\nours\n" {
		t.Errorf("the next round's change makes %q, %v; want theirs and ours", next, err)
	}
}
