package vaultindex

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkParse: reading, parsing and tokenizing the notes of a vault
// (BUILD_VAULT, skipped without), one core; what a build spends most on.
func BenchmarkParse(b *testing.B) {
	src := benchVault(b)
	paths, _ := src.Files()
	ix := New(src)
	for b.Loop() {
		for _, p := range paths {
			ix.read(p).release()
		}
	}
}

// BenchmarkSnapshot: writing and reading back the snapshot of a vault's
// index (BUILD_VAULT), in the format used (gob) and, for the choice, the
// same values as JSON.
func BenchmarkSnapshot(b *testing.B) {
	ix := New(benchVault(b))
	if _, err := ix.Tags(context.Background()); err != nil {
		b.Fatal(err)
	}
	var snap bytes.Buffer
	if err := ix.encode(&snap, "bench"); err != nil {
		b.Fatal(err)
	}
	b.Run("gob/write", func(b *testing.B) {
		for b.Loop() {
			if err := ix.encode(io.Discard, "bench"); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(snap.Len())/(1<<20), "MB")
	})
	b.Run("gob/read", func(b *testing.B) {
		for b.Loop() {
			if _, err := decode(bytes.NewReader(snap.Bytes()), "bench", int64(snap.Len()), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same values, one JSON document per gob value.
	var values []any
	dec := gob.NewDecoder(bytes.NewReader(snap.Bytes()))
	var h snapHeader
	if err := dec.Decode(&h); err != nil {
		b.Fatal(err)
	}
	values = append(values, &h)
	for left := h.Docs; left > 0; {
		var c []snapDoc
		if err := dec.Decode(&c); err != nil {
			b.Fatal(err)
		}
		left -= len(c)
		values = append(values, c)
	}
	for left := h.Terms; left > 0; {
		var t snapTerms
		if err := dec.Decode(&t); err != nil {
			b.Fatal(err)
		}
		left -= len(t.Text)
		values = append(values, &t)
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	for _, v := range values {
		if err := enc.Encode(v); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("json/write", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			for _, v := range values {
				if err := enc.Encode(v); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(js.Len())/(1<<20), "MB")
	})
	b.Run("json/read", func(b *testing.B) {
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(js.Bytes()))
			if err := dec.Decode(new(snapHeader)); err != nil {
				b.Fatal(err)
			}
			for left := h.Docs; left > 0; {
				var c []snapDoc
				if err := dec.Decode(&c); err != nil {
					b.Fatal(err)
				}
				left -= len(c)
			}
			for left := h.Terms; left > 0; {
				var t snapTerms
				if err := dec.Decode(&t); err != nil {
					b.Fatal(err)
				}
				left -= len(t.Text)
			}
		}
	})
}

func benchVault(b *testing.B) dirSource {
	dir := os.Getenv("BUILD_VAULT")
	if dir == "" {
		b.Skip("set BUILD_VAULT to a vault folder")
	}
	return dirSource(dir)
}

type dirSource string

func (d dirSource) Files() ([]string, error) {
	var paths []string
	err := filepath.WalkDir(string(d), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && filepath.Ext(p) == ".md" {
			rel, _ := filepath.Rel(string(d), p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return err
	})
	slices.Sort(paths)
	return paths, err
}

func (d dirSource) Stamp(p string) (Stamp, error) {
	fi, err := os.Stat(filepath.Join(string(d), p))
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Mod: fi.ModTime(), Size: fi.Size()}, nil
}

func (d dirSource) ReadFile(p string) ([]byte, error) {
	return os.ReadFile(filepath.Join(string(d), p))
}
