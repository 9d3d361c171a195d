//go:build amd64 && !purego

package logscan

import "golang.org/x/sys/cpu"

func wantVectors() []string {
	if cpu.X86.HasAVX2 {
		return []string{"avx2"}
	}
	return []string{}
}
