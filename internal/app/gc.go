package app

import "runtime/debug"

// relaxGCForBuild is the server's collector policy while the search index
// reads many notes at once (native.WithIndexBuildHook). A build makes
// garbage fast and keeps most of what it makes: a collection every time
// the heap grows by the percentage main sets would spend a third of the
// build rescanning the index, so it collects less often meanwhile, unless
// the user's GOGC is laxer already. Afterwards the build's garbage goes back
// to the system at once rather than over minutes: the server's resident
// size is what the user sees. It is process policy, so it lives here, in
// the program's wiring, not in the index.
func relaxGCForBuild() (end func()) {
	old := debug.SetGCPercent(200)
	if old < 0 || old > 200 {
		debug.SetGCPercent(old) // already laxer (GOGC=off, or higher)
	}
	return func() {
		debug.SetGCPercent(old)
		// Off the answer's path: it collects and returns pages, tens of
		// milliseconds the first search need not wait for.
		go debug.FreeOSMemory()
	}
}
