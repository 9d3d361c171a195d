package torch

import _ "embed"

// probeHook is the unit's hook in recomp run's probe (see framework.Probe).
//
//go:embed probe.py
var probeHook string
