package ledger

import (
	"fmt"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// HostRead is one line of the program that read a tensor's value on the host before its step
// ended, in one process: the framework cut the step there, ran the graph so far and waited for
// the device (PyTorch/XLA's "user code trying to access tensor value before torch_xla.sync").
type HostRead struct {
	Site     string // the program's line (FILE:LINE (function))
	Producer logscan.Producer
	Said     string // the framework's words
	File     string // the first log line that shows it
	Line     int
	// Compiled counts the graphs compiled there; Runs the graphs run there, and Steps the steps
	// of the process (both 0 when the log shows no executions: PyTorch/XLA's
	// PT_XLA_DEBUG_LEVEL=2 prints them).
	Compiled, Runs, Steps int
	// Wait is the time the process spent reading from the device, all reads together, when the
	// framework's metrics report says (0 when not).
	Wait time.Duration
}

// maxHostReads bounds the lines kept per process.
const maxHostReads = 64

// hostRead notes a compilation or an execution whose cause is a host read, or the end of a step.
func (l *Ledger) hostRead(p logscan.Producer, reason, site, file string, line int, executed bool) {
	fw := frameworks.ForProducer(p)
	if fw == nil || fw.HostRead == nil || reason == "" {
		return
	}
	if executed && fw.StepEnd != nil && fw.StepEnd(reason) {
		l.steps++
		return
	}
	if site == "" || !fw.HostRead(reason) {
		return
	}
	h := l.reads[site]
	if h == nil {
		if len(l.reads) == maxHostReads {
			return
		}
		h = &HostRead{Site: site, Producer: p, Said: reason, File: file, Line: line}
		l.reads[site] = h
		l.readOrder = append(l.readOrder, h)
	}
	if executed {
		h.Runs++
	} else {
		h.Compiled++
	}
}

// hostReads closes the process's host reads: its steps and the time its reads waited.
func (l *Ledger) hostReads() []HostRead {
	var out []HostRead
	for _, h := range l.readOrder {
		r := *h
		if r.Runs > 0 {
			r.Steps = l.steps
		}
		if fw := frameworks.ForProducer(r.Producer); fw != nil && fw.HostReadMetric != "" {
			r.Wait = l.sum.Metrics[fw.HostReadMetric].Total
		}
		out = append(out, r)
	}
	return out
}

// hostReadFindings says, for each line that read a tensor on the host mid-step, how often and
// what it cost.
func hostReadFindings(reads []HostRead) []Finding {
	var fs []Finding
	for _, h := range reads {
		fw := frameworks.ForProducer(h.Producer)
		name := string(h.Producer)
		if fw != nil {
			name = fw.Name
		}
		msg := fmt.Sprintf("%s reads a tensor on the host: %s runs the graph pending there and waits for the device", h.Site, name)
		sev := SeverityWarning
		switch {
		case h.Runs > 0 && h.Steps > 0 && h.Runs >= h.Steps:
			msg += fmt.Sprintf(", every step (%d times in %d steps)", h.Runs, h.Steps)
		case h.Runs > 0 && h.Steps > 0:
			msg += fmt.Sprintf(", %d times in %d steps", h.Runs, h.Steps)
			sev = SeverityInfo // not every step: an epoch's metric, a periodic log line
		case h.Runs > 0:
			msg += fmt.Sprintf(", %d times", h.Runs)
		default:
			msg += " (how often, the log does not show: it lists no executions)"
		}
		if h.Compiled > 0 {
			msg += fmt.Sprintf("; %d graph(s) compiled there", h.Compiled)
		}
		if h.Wait >= time.Millisecond {
			msg += fmt.Sprintf("; reading from the device took %s in all (%s, every read of the process)", FormatDuration(h.Wait), fw.HostReadMetric)
		}
		msg += fmt.Sprintf("; %s said: %s", name, h.Said)
		f := Finding{Severity: sev, Kind: FindingHostRead, Module: h.Site, File: h.File, Line: h.Line, Message: msg}
		if fw != nil {
			f.Advice = fw.Advice.Warning
		}
		fs = append(fs, f)
	}
	return fs
}
