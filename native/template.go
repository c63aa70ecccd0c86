package native

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// templateVar matches the core Templates plugin's variables: {{title}},
// {{date}}, {{time}}, and {{date:FORMAT}} / {{time:FORMAT}}.
var templateVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{\s*(title|date|time)\s*(?::([^}]*))?\}\}`) })

// template reads the template called name from the folder the Templates
// plugin is set to use, and fills in its variables as the plugin does.
func (v *Engine) template(name, title string, now time.Time) ([]byte, error) {
	folder, inFolder, err := v.templateFiles()
	if err != nil {
		return nil, err
	}
	rel, err := note.Resolve(name, inFolder)
	if err != nil {
		if e := errors.From(err); e.Kind == errors.FileNotFound {
			return nil, errors.E(errors.FileNotFound, "no template named %q in the template folder %s", name, folder).
				WithHint("Pass the name of a note in the template folder.").With("template", name)
		}
		return nil, err
	}
	data, err := v.readSmall(folder+"/"+rel, maxConfig)
	if err != nil {
		return nil, FileError(err, folder+"/"+rel)
	}
	return fillTemplate(data, title, now), nil
}

// noTemplateFolder is the error of a vault whose Templates plugin has no
// folder set.
func noTemplateFolder() *errors.Error {
	return errors.E(errors.FileNotFound, "no template folder is configured for this vault").
		WithHint("Set a template folder in Obsidian (Settings → Templates → Template folder location), or create the note without `template`.")
}

// templateFiles are the files of the template folder, by their path in it.
func (v *Engine) templateFiles() (folder string, inFolder []string, err error) {
	folder = v.templatesFolder()
	if folder == "" {
		return "", nil, noTemplateFolder()
	}
	files, err := v.Files()
	if err != nil {
		return "", nil, err
	}
	for _, f := range files {
		if rel, ok := strings.CutPrefix(f, folder+"/"); ok {
			inFolder = append(inFolder, rel)
		}
	}
	return folder, inFolder, nil
}

// maxTemplates bounds a listing of templates, each of which is read.
const maxTemplates = 200

// Templates lists the notes of the template folder, by path, with the
// variables each fills in ({{title}}, {{date:YYYY-MM-DD}}…).
func (v *Engine) Templates(ctx context.Context) (note.Templates, error) {
	folder, inFolder, err := v.templateFiles()
	if err != nil {
		return note.Templates{}, err
	}
	out := note.Templates{Folder: folder, Templates: []note.Template{}}
	for _, rel := range inFolder {
		if path.Ext(rel) != ".md" {
			continue
		}
		f := folder + "/" + rel
		if err := ctx.Err(); err != nil {
			return note.Templates{}, err
		}
		if len(out.Templates) == maxTemplates {
			out.Truncated = true
			break
		}
		data, err := v.readSmall(f, maxConfig)
		if err != nil {
			return note.Templates{}, FileError(err, f)
		}
		vars := []string{}
		for _, m := range templateVar().FindAllSubmatch(data, -1) {
			name := string(m[1])
			if f := strings.TrimSpace(string(m[2])); f != "" {
				name += ":" + f
			}
			if !slices.Contains(vars, name) {
				vars = append(vars, name)
			}
		}
		out.Templates = append(out.Templates, note.Template{Path: f, Name: strings.TrimSuffix(rel, ".md"), Variables: vars})
	}
	return out, nil
}

// fillTemplate fills in a template's variables as the Templates plugin
// does.
func fillTemplate(data []byte, title string, now time.Time) []byte {
	return templateVar().ReplaceAllFunc(data, func(m []byte) []byte {
		sub := templateVar().FindSubmatch(m)
		format := string(sub[2])
		switch string(sub[1]) {
		case "title":
			return []byte(title)
		case "date":
			if format == "" {
				format = "YYYY-MM-DD"
			}
		default:
			if format == "" {
				format = "HH:mm"
			}
		}
		return []byte(momentFormat(now, format))
	})
}
