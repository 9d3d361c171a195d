package ledger

import (
	"sort"
	"time"

	"github.com/recomp/recomp/logscan"
)

// Report is the account of one or more processes.
type Report struct {
	Summary Summary
	// Modules are the module families, in the order of their first unit.
	Modules []*Module
	// Late are the compilations after warm-up, in input order (the first MaxListed).
	Late []*Unit
	// Loads are the first MaxListed executable loads of each input; LateLoads the loads after
	// warm-up (the first MaxListed).
	Loads     []Load
	LateLoads []Load
	Findings  []Finding
	// Inputs is how many logs were read; Processes how many processes they were.
	Inputs    int
	Processes int
	// MarkerMissing are the inputs in which the warm-up marker matched no line.
	MarkerMissing []string
	// Procs describe each process, in input order: what evidence its log holds.
	Procs []Process
	// Sequences are each process's compile requests in order (one per process, in the order
	// of Procs): what ranks of one job are compared by.
	Sequences []*Sequence
	// Unread are the first logscan.MaxUnread lines of all inputs that look like compile records
	// recomp could not read (Summary.UnreadRecords counts them all).
	Unread []logscan.UnreadLine
	// LeftOut says, one sentence each, what evidence a cap on what recomp holds left unread
	// (naming the cap): with any, the counts may be short of what the logs say, and a gate
	// cannot pass (the first MaxListed).
	LeftOut []string
	// HostReads are the lines of each process that read a tensor on the host mid-step.
	HostReads []HostRead
	// Silenced are the stacks whose log held no record of their compilations, whose compilations
	// are the probe's records of them (JudgedElsewhere).
	Silenced []Silenced

	retraces []*retraceNote
	notes    []Finding // what each process's metrics report says beyond its log
	// logs counts the logs whose processes were merged as such (mergeLog); 0 when each report
	// merged was an input of its own.
	logs int
}

// Unlogged is a stack the log shows retracing, Retraces times, without a record of any of its
// compilations.
type Unlogged struct {
	Stack    string // the stack's unit name (frameworks.ByName)
	Retraces int
}

// Merge combines the reports of separate processes (each from its own Ledger, in input order)
// and names the findings. Module families are compared within a process: a family compiled
// once in each of two processes is not a recompilation.
func Merge(opt Options, reports ...*Report) *Report {
	m := newMerger(opt)
	for _, r := range reports {
		m.add(r)
	}
	return m.finish()
}

// merger combines reports one at a time, in input order, so that a report can be dropped once
// it is merged (ReadLogs merges each log's reports as soon as the logs before it are merged).
type merger struct {
	opt      Options
	out      *Report
	byFamily map[string]*Module
	notes    map[string]*retraceNote
}

func newMerger(opt Options) *merger {
	return &merger{opt: opt, out: &Report{}, byFamily: map[string]*Module{}, notes: map[string]*retraceNote{}}
}

func (m *merger) add(r *Report) {
	out := m.out
	out.Summary.add(r.Summary)
	out.Inputs += r.Inputs
	out.Processes++
	out.Late = appendCapped(out.Late, r.Late, MaxListed)
	out.Loads = append(out.Loads, r.Loads...)
	out.LateLoads = appendCapped(out.LateLoads, r.LateLoads, MaxListed)
	out.MarkerMissing = append(out.MarkerMissing, r.MarkerMissing...)
	out.Procs = append(out.Procs, r.Procs...)
	out.Sequences = append(out.Sequences, r.Sequences...)
	out.notes = appendCapped(out.notes, r.notes, MaxListed)
	out.Unread = appendCapped(out.Unread, r.Unread, logscan.MaxUnread)
	out.LeftOut = appendCapped(out.LeftOut, r.LeftOut, MaxListed)
	out.HostReads = appendCapped(out.HostReads, r.HostReads, MaxListed)
	for _, mod := range r.Modules {
		out.Modules = mergeInto(out.Modules, m.byFamily, mod.Family, mod)
	}
	for _, n := range r.retraces {
		if _, ok := m.notes[n.key]; !ok && len(out.retraces) >= maxRetraceNotes {
			out.Summary.RetracesNotListed += n.count
			continue
		}
		out.retraces = mergeInto(out.retraces, m.notes, n.key, n)
	}
}

// mergeInto merges v into the element of list that index holds under key, or appends it to list
// (and index) when there is none.
func mergeInto[T interface{ merge(T) }](list []T, index map[string]T, key string, v T) []T {
	if have, ok := index[key]; ok {
		have.merge(v)
		return list
	}
	index[key] = v
	return append(list, v)
}

// mergeLog merges the reports of the processes one log held (a launcher's ranks, the processes
// the probe told apart), in order.
func (m *merger) mergeLog(reports []*Report) {
	m.out.logs++
	for _, r := range reports {
		m.add(r)
	}
}

func (m *merger) finish() *Report {
	out := m.out
	sort.SliceStable(out.Modules, func(i, j int) bool {
		a, b := out.Modules[i].first, out.Modules[j].first
		return a.Input < b.Input || a.Input == b.Input && a.Line < b.Line
	})
	out.Findings = findings(m.opt, out)
	return out
}

func appendCapped[T any](list, more []T, n int) []T {
	if room := n - len(list); room > 0 {
		list = append(list, more[:min(room, len(more))]...)
	}
	return list
}

// merge adds the account of the same family in a later process.
//
//lint:ignore U1000 called through mergeInto's type constraint (staticcheck misses the use)
func (m *Module) merge(o *Module) {
	for _, n := range o.Names {
		m.Names = addText(m.Names, n)
	}
	for _, s := range o.Reasons {
		m.Reasons = addText(m.Reasons, s)
	}
	for _, s := range o.Signatures {
		m.Signatures = addText(m.Signatures, s)
	}
	m.CompileRequests += o.CompileRequests
	m.Compilations += o.Compilations
	m.CacheHits += o.CacheHits
	m.CacheMisses += o.CacheMisses
	m.CompileTime += o.CompileTime
	m.TraceTime += o.TraceTime
	m.LowerTime += o.LowerTime
	for _, h := range o.Hashes {
		if !m.hasHash(h) {
			m.addHash(h)
		}
	}
	if o.HashCount > len(o.Hashes) {
		m.HashCount = max(m.HashCount, o.HashCount)
	}
	m.SameHashAgain = m.SameHashAgain || o.SameHashAgain
	m.Recompiled = m.Recompiled || o.Recompiled
	m.Recompilations += o.Recompilations
	m.RecompiledIn += o.RecompiledIn
	m.Inputs += o.Inputs
	m.Eager = m.Eager && o.Eager
	if m.FirstRecompile == nil {
		m.FirstRecompile = o.FirstRecompile
	}
	m.Units = appendCapped(m.Units, o.Units, MaxUnits)
}

// Process is what the log of one process shows about its own evidence: whether a gate can
// rely on it.
type Process struct {
	// Name is the process's log (its logs, when one process was given in parts), with the
	// rank a launcher's prefix named.
	Name string
	// Evidence counts the events a framework prints per compilation, cache lookup, load or
	// execution when its compile logging is on; zero means the log cannot show that nothing
	// compiled.
	Evidence int
	// ClusterLines counts TF's "Compiled cluster using XLA!", printed once per process whatever
	// its logging: no evidence of how often it compiled.
	ClusterLines int
	// TFEvidence counts the evidence events of TF's stack (its device compiler's records, on
	// an IPU those of the TF-IPU backend and Poplar that compile its clusters): with
	// ClusterLines and none of them, TF compiled and its logging was off, whatever another
	// stack in the process logged.
	TFEvidence int
	// Unlogged are the stacks whose retraces the log shows but none of their compilations: their
	// compile logging was off, whatever another stack in the process logged.
	Unlogged     []Unlogged
	Compilations int
	// Cost is the compile time of its listed compilations (the compiler's, tracing and
	// lowering): what this process spent compiling, which a job of many processes waits for
	// on the slowest of them.
	Cost   time.Duration
	Traces int // retraces the framework explained
	// Counted are the compilations --warmup N counts: those of the program's own functions
	// (eager one-op programs left out).
	Counted int
	// WarmupUnfinished says the process compiled fewer times than --warmup N asked: its warm-up
	// never ended.
	WarmupUnfinished bool
	// Cut is a compilation the log ends inside (the log was cut, or is still being written).
	Cut *Unit
	// CutBegin says where the log ends inside a line that begins a compilation (its last line,
	// unterminated and cut): an open compilation too. "" when it does not.
	CutBegin string
	// Steps counts the steps the process ended (PyTorch/XLA's executions caused by
	// torch_xla.sync, printed with PT_XLA_DEBUG_LEVEL=2, or counted by recomp run's probe); 0
	// when its log shows none.
	Steps int
	// Epochs are the steps the process had ended when each epoch began (0 for the first), in
	// order, where something marks epochs (recomp run's probe: a data loader iterated again);
	// nil when nothing does. Step s (1 for the first) is in epoch k (1 for the first) when
	// Epochs[k-1] < s and, for a later epoch, s <= Epochs[k].
	Epochs []int
	// Producers are the producers of its events (markers left out), in the order first seen:
	// whose logging a log without evidence should turn on.
	Producers []logscan.Producer
}

// Compiled returns the listed units of the module that were compiled, in order.
func (m *Module) Compiled() []*Unit {
	var out []*Unit
	for _, u := range m.Units {
		if u.Compiled {
			out = append(out, u)
		}
	}
	return out
}
