package tools

import "testing"

// TestWritesAgreesWithTheAnnotations: the guard's answer for every tool,
// the several-vault one too, is what its annotation tells a client, and a
// name no tool has is taken to write.
func TestWritesAgreesWithTheAnnotations(t *testing.T) {
	t.Parallel()
	all := append(All(Vault{}), listVaults(nil).build(Vault{}, newValidator()))
	reads := 0
	for _, st := range all {
		annotated := st.Tool.Annotations.ReadOnlyHint != nil && *st.Tool.Annotations.ReadOnlyHint
		if Writes(st.Tool.Name) == annotated {
			t.Errorf("Writes(%s) = %v, but its annotation says read-only %v", st.Tool.Name, Writes(st.Tool.Name), annotated)
		}
		if annotated {
			reads++
		}
	}
	if reads < 10 || reads == len(all) {
		t.Errorf("%d of %d tools read only: the test sees too little", reads, len(all))
	}
	for _, name := range []string{"obsidian_create_note", "obsidian_delete_note", "obsidian_nonesuch", ""} {
		if !Writes(name) {
			t.Errorf("Writes(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"obsidian_read_note", "obsidian_list_vaults", "obsidian_search_notes"} {
		if Writes(name) {
			t.Errorf("Writes(%q) = true, want false", name)
		}
	}
}
