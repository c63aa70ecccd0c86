package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestREADME fails when the README's generated sections (tools, errors,
// configuration, and the layout of the module's packages) differ from the
// code. `make docs` rewrites them.
func TestREADME(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	file := filepath.Join(root, "README.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	sections := readmeSections()
	// The layout is read from the source tree, which only a test has.
	sections["LAYOUT"] = layoutMarkdown(t, root)
	// Measured on this build, and the bundle's settings from its manifest.
	sections["MEASURED"] = measuredMarkdown(t)
	sections["BUNDLE"] = bundleMarkdown(t, root)
	// The opening claims, from the last `make bench` run's figures.
	sections["HEADLINE"] = headlineMarkdown(t, root)
	for name, body := range sections {
		if doc, err = replaceSection(doc, name, body); err != nil {
			t.Fatal(err)
		}
	}
	if doc == string(data) {
		return
	}
	if *update {
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md is stale: run `make docs` (go test ./internal/app -run TestREADME -update) and commit the result\n%s", obsidiantest.DiffLines(string(data), doc))
}

func TestReplaceSection(t *testing.T) {
	t.Parallel()
	got, err := replaceSection("a\n<!-- START AUTOMATED X -->\nold\n<!-- END AUTOMATED X -->\nb", "X", "new\n")
	if err != nil || got != "a\n<!-- START AUTOMATED X -->\nnew\n<!-- END AUTOMATED X -->\nb" {
		t.Errorf("replaceSection = %q, %v", got, err)
	}
	if _, err := replaceSection("no markers", "X", ""); err == nil {
		t.Error("missing markers accepted")
	}
}
