package note

// Template is one template of the vault's template folder.
type Template struct {
	Path      string   `json:"path" jsonschema:"vault-relative path of the template"`
	Name      string   `json:"name" jsonschema:"its name, as obsidian_create_note's template takes it"`
	Variables []string `json:"variables" jsonschema:"the placeholders it fills in, as written: title, date, time, date:FORMAT, time:FORMAT"`
}

// Templates are the vault's templates.
type Templates struct {
	Folder    string     `json:"folder" jsonschema:"the template folder (Obsidian: Settings → Templates)"`
	Templates []Template `json:"templates"`
	Truncated bool       `json:"truncated,omitempty" jsonschema:"true when the folder holds more than the 200 templates listed"`
}
