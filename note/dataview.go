package note

// DataviewQuery is a Dataview query to answer: a DQL query (the text of
// a dataview block), or with Inline an expression (the text after "= "
// in an inline query), run from the note at Origin (this, [[]]) when
// one is given.
type DataviewQuery struct {
	Query  string
	Origin Locator
	Inline bool
}
