// Package shape holds tests of the module's shape and nothing else, so that it does not slip
// while nothing guards it:
//
//   - layers_test.go: the packages from the top (the commands) down to the leaves and the
//     import edges each may have, as data; it fails on an import the table does not allow and
//     on an allowed edge that points up. The model is Go's own go/build deps_test.go. To add an
//     import, add the edge to allowed in the importing package's row; it must point down.
//   - complexity_test.go: no library function over cyclomatic complexity 25 (gocyclo's count),
//     but for the exceptions it lists, each with its reason.
//   - doc_test.go: a package of more than 1,500 lines has a doc.go whose package comment says
//     what each of its files holds.
//   - stacks_test.go: no stack (JAX, TF, Keras, PyTorch/XLA, Graphcore's, Neuron) named in a
//     string literal, nor logscan's stack producers used, outside frameworks/, but for the
//     files it lists, each with its count and reason: a stack's knowledge lives in its unit.
package shape
