package ledger

import "slices"

// OneProgram counts the compilations of several programs of a one-process report as one
// program's, the first's: a front end's step traced again as a function of its own (Keras's
// predict step, traced for a full batch and again, relaxed, for the last partial batch) is still
// one step compiled again. Under the default warm-up policy each later compilation is after
// warm-up, as any program's. The findings are named again. It says whether it joined any.
func (r *Report) OneProgram(mods []*Module, opt Options) bool {
	if len(mods) < 2 || r.Processes > 1 {
		return false
	}
	a := mods[0]
	for _, b := range mods[1:] {
		if b == a || !slices.Contains(r.Modules, b) {
			return false
		}
	}
	program := ""
	if len(a.Units) > 0 {
		program = a.Units[0].Program
	}
	for _, b := range mods[1:] {
		for _, u := range b.Units {
			u.Family, u.Program = a.Family, program
		}
		a.Units = append(a.Units, b.Units...)
		a.Names = append(a.Names, b.Names...)
		a.CompileRequests += b.CompileRequests
		a.Compilations += b.Compilations
		a.CacheHits += b.CacheHits
		a.CacheMisses += b.CacheMisses
		a.CompileTime += b.CompileTime
		a.TraceTime += b.TraceTime
		a.LowerTime += b.LowerTime
		for _, h := range b.Hashes {
			a.addHash(h)
		}
		r.Summary.Recompilations -= b.Recompilations
		a.Recompilations += b.Recompilations
		r.Modules = slices.DeleteFunc(r.Modules, func(m *Module) bool { return m == b })
	}
	SortUnits(a.Units)
	seq := 0
	for _, u := range a.Units {
		if !u.Compiled {
			continue
		}
		seq++
		if u.Seq == seq {
			continue
		}
		was := u.Seq > 1 || u.SeenBefore
		u.Seq = seq
		if was || seq == 1 {
			continue
		}
		r.Summary.Recompilations++
		a.Recompilations++
		a.Recompiled, a.RecompiledIn = true, 1
		if a.FirstRecompile == nil || u.Line < a.FirstRecompile.Line {
			a.FirstRecompile = u
		}
		if opt.Baseline == nil && opt.Warmup == 0 && !opt.AfterMarker && !u.AfterWarmup && !u.Eager {
			u.Late, u.AfterWarmup = "compiled after warm-up: the same step of the front end, traced again", true
			r.Summary.AfterWarmup++
			r.Summary.LateCompileTime += u.Duration
			r.Late = append(r.Late, u)
		}
	}
	r.Findings = findings(opt, r)
	return true
}

// Refind names the report's findings again, after the probe's records added to its units what
// they quote (the static arguments a framework's explanation leaves out).
func (r *Report) Refind(opt Options) {
	r.Findings = findings(opt, r)
}
