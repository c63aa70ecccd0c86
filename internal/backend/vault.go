package backend

import (
	"context"
	"slices"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// Vault is the vault every tool reaches: one adapter per capability,
// each method of which holds the call to the folder policy and then
// routes it (policy, then route, in one place). A tool added later is
// held to the policy without knowing of it. Ask is left to the caller.
//
// The policy is checked here, once, on what a call names: a note, a
// folder, a destination, a periodic note. The engine keeps what only it
// can see: it leaves hidden notes out of every answer it makes
// (listings, search, tags, links: native.WithPolicy) and judges the
// files a call reaches without naming them (those a folder move takes
// along, the notes whose links a rename rewrites). What comes back
// through the app is filtered here too, so that no hidden path is
// answered whichever backend served the call.
func (r *Router) Vault() tools.Vault {
	return tools.Vault{
		Notes:     notes{r},
		Search:    search{r},
		Files:     files{r},
		Graph:     graph{r},
		Meta:      meta{r},
		Edit:      edit{r},
		Daily:     daily{r},
		Bases:     basesQuery{r},
		Dataview:  dataviewQuery{r},
		Tags:      tagRenamer{r},
		Headings:  headingRenamer{r},
		Tasks:     taskList{r},
		Templates: templates{r},
		Commands:  commands{r},
		Folders:   folders{r},
	}
}

// writePolicy is the policy for a write. The folder is learned from the
// app first, so that its ignore file holds for a write that goes through
// the app before anything else has needed the folder.
func (r *Router) writePolicy(ctx context.Context) *policy.Policy {
	r.Learn(ctx)
	return r.Policy(ctx)
}

// readPolicy is the policy for a read of one note. With rules set, the
// folder is learned first too: the policy judges a path by the file it
// reaches through symlinks, which only the folder tells.
func (r *Router) readPolicy(ctx context.Context) *policy.Policy {
	pol := r.Policy(ctx)
	if pol.Restricts() {
		pol = r.writePolicy(ctx)
	}
	return pol
}

// named refuses a locator naming a hidden path. A name is resolved by the
// backend among visible notes only.
func named(pol *policy.Policy, loc note.Locator) error {
	if loc.Path == "" {
		return nil
	}
	return pol.CheckRead(loc.Path)
}

// writable resolves loc to the note's path and refuses it unless the
// policy lets the server change it. The call then goes to that exact
// path.
func (r *Router) writable(ctx context.Context, loc note.Locator) (*policy.Policy, note.Locator, error) {
	pol := r.writePolicy(ctx)
	if !pol.Restricts() {
		return pol, loc, nil
	}
	p := loc.Path
	if p == "" {
		info, err := notes{r}.info(ctx, loc)
		if err != nil {
			return pol, loc, err
		}
		p = info.Path
	}
	loc.Path, loc.Name = p, ""
	return pol, loc, pol.CheckWrite(p)
}

// readNote holds a call on one note to the policy: loc's path before it,
// and after it the path of the note found (a name may resolve to a hidden
// note). The policy comes back for what the answer names besides.
func readNote[T any](ctx context.Context, r *Router, loc note.Locator, call func() (T, error), path func(T) string) (T, *policy.Policy, error) {
	var none T
	pol := r.readPolicy(ctx)
	if err := named(pol, loc); err != nil {
		return none, pol, err
	}
	res, err := call()
	if err == nil {
		err = pol.CheckRead(path(res))
	}
	if err != nil {
		return none, pol, err
	}
	return res, pol, nil
}

// visible is items less those of the notes the policy hides; path names
// an item's note.
func visible[T any](ctx context.Context, r *Router, items []T, path func(T) string) []T {
	if pol := r.Policy(ctx); pol.Hides() {
		return slices.DeleteFunc(items, func(it T) bool { return pol.Hidden(path(it)) })
	}
	return items
}
