//go:build purego || !(amd64 || arm64)

package logscan

// Without a vector scan (-tags purego, or an architecture without one) the prefilter uses its
// shift table: teddyVectors stays empty.
