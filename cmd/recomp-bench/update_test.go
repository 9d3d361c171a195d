package main

// The module's one -update flag (package golden): every test binary defines it, so that
// `go test ./... -update` runs here too, where no golden file is.
import _ "github.com/recomp/recomp/internal/golden"
