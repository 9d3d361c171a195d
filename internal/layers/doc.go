// Package layers holds the module's layering test and nothing else: layers_test.go states, as
// data, the packages from the top (the commands) down to the leaves and the import edges each
// package may have, and fails on an import the table does not allow or on an allowed edge that
// points up (the few that still do are listed as exceptions, to be removed).
//
// The model is Go's own go/build deps_test.go. To add an import: add the edge to allowed in
// layers_test.go, in the importing package's row; it must point to a lower layer.
package layers
