// Package layout holds the checks of how the whole repository is laid
// out, as tests: every package placed in a lattice that says what it may
// import (and the imports that must never be), no function past a bound
// on cyclomatic complexity, no process-wide setting changed by a library
// package, and the vault reached through handles.
package layout
