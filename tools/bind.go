package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// locator is embedded in the arguments of every tool that targets an
// existing note: exactly one of its fields must be set.
type locator struct {
	Path string `json:"path,omitempty" jsonschema:"Vault-relative path." validate:"omitempty,notepath"`
	Name string `json:"name,omitempty" jsonschema:"Or the note's name." validate:"omitempty,notename"`
}

func (l locator) note() note.Locator { return note.Locator{Path: l.Path, Name: l.Name} }

// checks maps our custom validator tags to the note package's rules, which
// also produce the message telling the caller how to fix the value.
var checks = map[string]func(string) string{
	"notepath":   note.CheckPath,
	"notename":   note.CheckName,
	"newname":    note.CheckNewName,
	"folder":     note.CheckFolder,
	"nocontrols": checkNoControls,
	"linerange":  checkLines,
	"etag":       checkETag,
	"day":        checkDay,
}

func checkDay(s string) string {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return "must be a date YYYY-MM-DD, e.g. 2026-11-23"
	}
	return ""
}

func checkETag(s string) string {
	if len(s) != 32 || strings.Trim(s, "0123456789abcdef") != "" {
		return "must be an etag as read: 32 lowercase hexadecimal characters, e.g. from obsidian_read_note's etag"
	}
	return ""
}

func checkNoControls(s string) string {
	if strings.ContainsRune(s, 0) {
		return "must not contain NUL bytes"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("must not contain control characters (found U+%04X)", r)
		}
	}
	return ""
}

// newValidator builds the validator every tool shares. It is created by All,
// not held in a package variable, so tests and servers never share state.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	for tag, check := range checks {
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			return check(fl.Field().String()) == ""
		}); err != nil {
			panic(err) // programming error: a bad tag name
		}
	}
	// A locator names exactly one of path and name, a rule across two
	// fields that tags cannot say (omitempty would skip
	// required_without). Argument types of their own say theirs
	// (acrossFields); these are embedded in many.
	v.RegisterStructValidation(onePathOrName, locator{}, canvasLocator{})
	return v
}

// onePathOrName reports, on the struct sl is at, that exactly one of its
// Path and Name must be set. The struct may be an unexported embedded
// field, so it is read by reflection rather than through Interface, which
// would panic.
func onePathOrName(sl validator.StructLevel) {
	l := sl.Current()
	p, n := l.FieldByName("Path").String(), l.FieldByName("Name").String()
	if (p == "") == (n == "") {
		sl.ReportError(p, "path", "Path", "locator", "")
		sl.ReportError(n, "name", "Name", "locator", "")
	}
}

// bind decodes a call's arguments into A and validates them. Every problem
// becomes INVALID_PARAMS with data.fields naming each field and its fix.
func bind[A any](v *validator.Validate, req mcp.CallToolRequest) (A, error) {
	var args A
	raw := []byte(req.Params.RawArguments)
	if len(raw) == 0 && req.Params.Arguments != nil {
		var err error
		if raw, err = json.Marshal(req.Params.Arguments); err != nil {
			return args, errors.InvalidFields(errors.Field{Field: "arguments", Message: "must be a JSON object"})
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return args, errors.InvalidFields(decodeField(err, argNames(reflect.TypeFor[A]())))
	}
	if err := v.Struct(args); err != nil {
		var verrs validator.ValidationErrors
		if !errors.As(err, &verrs) {
			return args, errors.E(errors.Internal, "validating arguments: %v", err)
		}
		fields := make([]errors.Field, 0, len(verrs))
		for _, fe := range verrs {
			fields = append(fields, errors.Field{Field: fe.Field(), Message: fieldMessage(fe)})
		}
		return args, errors.InvalidFields(fields...)
	}
	return args, nil
}

func fieldMessage(fe validator.FieldError) string {
	if check, ok := checks[fe.Tag()]; ok {
		return check(fmt.Sprint(fe.Value()))
	}
	switch fe.Tag() {
	case "locator":
		return "give exactly one of `path` (exact vault-relative path, e.g. Projects/Plan.md) or `name` (note name resolved like a wikilink, e.g. Plan)"
	case "undoWhich":
		return "give exactly one of `id` (a change of obsidian_history) or `client` (to undo that client's last changes)"
	case "undoLast":
		return "is how many of `client`'s last changes to undo: give client too"
	case "folderTo":
		return "is the folder's new path, for operation move (e.g. Archive/2026), and only for it"
	case "target":
		return "give exactly one target: `heading` (a heading path such as Plan > Risks), `block` (^id) or `property` (a frontmatter key)"
	case "required":
		return "is required"
	case "min":
		if k := fe.Kind(); k == reflect.Int || k == reflect.Int64 {
			return "must be at least " + fe.Param()
		}
		return "must not be empty"
	case "max":
		switch fe.Kind() {
		case reflect.Int, reflect.Int64:
			return "must be at most " + fe.Param()
		case reflect.Slice:
			return "must have at most " + fe.Param() + " items"
		}
		return "must be at most " + fe.Param() + " characters"
	case "oneof":
		return "must be one of: " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "excluded_with":
		return "cannot be combined with `" + strings.ToLower(fe.Param()) + "`"
	}
	return fmt.Sprintf("failed the %q check", fe.Tag())
}

// decodeField explains a JSON decoding failure as a field error.
func decodeField(err error, names []string) errors.Field {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		// Field is a Go path ("locator.path" inside the embedded struct);
		// the client knows only the flat JSON key.
		field := typeErr.Field[strings.LastIndex(typeErr.Field, ".")+1:]
		return errors.Field{Field: field, Message: fmt.Sprintf("must be %s, not %s", jsonType(typeErr.Type), article(typeErr.Value))}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		// encoding/json quotes the name Go-style: "\x7f" for a DEL key
		// (found by FuzzArguments). Report the key as the client sent it.
		if unquoted, err := strconv.Unquote(name); err == nil {
			name = unquoted
		}
		return errors.Field{Field: name, Message: "is not an argument of this tool; valid arguments: " + strings.Join(names, ", ")}
	}
	if errors.As(err, &typeErr) {
		return errors.Field{Field: "arguments", Message: "must be a JSON object of the tool's arguments, not " + article(typeErr.Value)}
	}
	return errors.Field{Field: "arguments", Message: "must be a JSON object of the tool's arguments"}
}

func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

func article(v string) string {
	if v == "" {
		return "that"
	}
	if strings.ContainsAny(v[:1], "aeiou") {
		return "an " + v
	}
	return "a " + v
}

// argNames lists the JSON argument names of an args struct, embedded
// structs included.
func argNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			names = append(names, argNames(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
