package vaultindex

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse: reading, parsing and tokenizing the notes of a vault
// (BUILD_VAULT, skipped without), one core; what a build spends most on.
func BenchmarkParse(b *testing.B) {
	dir := os.Getenv("BUILD_VAULT")
	if dir == "" {
		b.Skip("set BUILD_VAULT to a vault folder")
	}
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".md" {
			rel, _ := filepath.Rel(dir, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	ix := New(dirSource(dir))
	for b.Loop() {
		for _, p := range paths {
			ix.read(p).release()
		}
	}
}

type dirSource string

func (d dirSource) Files() ([]string, error) { return nil, nil }
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
