//go:build arm64 && !purego

package logscan

func wantVectors() []string { return []string{"neon"} }
