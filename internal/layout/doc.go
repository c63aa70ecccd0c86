// Package layout holds the checks of how the whole repository is laid
// out, as tests: no non-test file over 500 lines, no process-wide setting
// changed by a library package, and no import that runs sideways between
// packages whose documentation says they are apart.
package layout
