package runfolder

import "sync/atomic"

// Looks counts what this process read of run folders: each folder looked at (Open, Read, Of,
// Runs: its run.log, dump/ and manifest.json looked for), each manifest read, each reading of
// the probe's records. A command reads a run folder once: its tests count these around it.
type Looks struct {
	Folders, Manifests, Probes int64
}

var looks struct{ folders, manifests, probes atomic.Int64 }

// Looked is what the process read of run folders so far (Looks).
func Looked() Looks {
	return Looks{Folders: looks.folders.Load(), Manifests: looks.manifests.Load(), Probes: looks.probes.Load()}
}

// Since is what was read of run folders since before (Looked's).
func (l Looks) Since(before Looks) Looks {
	return Looks{Folders: l.Folders - before.Folders, Manifests: l.Manifests - before.Manifests, Probes: l.Probes - before.Probes}
}
