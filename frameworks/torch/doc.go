// Package torch is recomp's unit for torch.compile (PT2: dynamo, AOTAutograd, Inductor), the
// front end of PyTorch/XLA's dynamo path too: how dynamo's recompile records and guard failures
// read, the facts its guards state, what `recomp run` switches on, and PT2's own remedies.
// Behind another stack (torch.compile with backend="openxla"), dynamo's records explain that
// stack's compilations (Compiling, HandedOver) and each stack says what it knows.
//
// The work is split by job: torch.go declares the unit (its producers, settings, advice and
// what it reads); messages.go reads dynamo's log lines in each release's wording; facts.go reads
// its guard failures into typed facts; trace.go reads torch's structured trace (TORCH_TRACE):
// compile ids, their seconds, the user's line, the recompile limit; cachetrace.go reads the
// trace's lookups of Inductor's FX-graph and AOTAutograd caches; cache.go knows those caches'
// folders under TORCHINDUCTOR_CACHE_DIR (their entries and key parts); keyed.go is the FX-graph
// cache as recomp diff holds two runs' lookups against it (keys, parts, remedies); probe.go is the unit's
// hook in recomp run's probe (probe.py, each compilation dynamo's metrics record).
package torch
