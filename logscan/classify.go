package logscan

import (
	"slices"
	"strings"
	"time"
)

func (s *Scanner) emit(h header, lineNo int, ev Event) {
	ev.File, ev.Line, ev.Rank = s.name, lineNo, s.rank
	if h.producer != "" {
		ev.Producer = h.producer
	}
	ev.Time, ev.DateKnown, ev.Stamp = h.t, h.dateKnown, h.stamp
	if s.duplicate(ev, h.own) {
		if !s.opt.KeepRepeats {
			return
		}
		ev.Repeat = true
	}
	s.last, s.hasLast, s.lastOwn = ev, true, h.own
	if !ev.Time.IsZero() {
		if s.stats.First.IsZero() {
			s.stats.First = ev.Time
		}
		s.stats.Last = ev.Time
	}
	s.pending = append(s.pending, ev)
}

// duplicate reports whether ev repeats the event just before it from a line shortly above: a
// Python program whose logging has two handlers (JAX 0.4's own and the program's root
// handler) prints every record twice, in two formats. Two records whose own layouts give
// different times are two records (two processes writing one log compile the same function
// with the same arguments), however alike, and so are two ranks' or two processes' records:
// the event before is the one of ev's own process (procState.last).
func (s *Scanner) duplicate(ev Event, own bool) bool {
	p := s.last
	if !s.hasLast || p.Line == ev.Line || ev.Line-p.Line > 2*maxExplanation+2 ||
		!(s.g.dropRepeats[ev.Producer] || ev.Kind == Retrace || ev.Kind == Trace) {
		return false
	}
	if own && s.lastOwn && apart(p, ev) {
		return false
	}
	return p.Kind == ev.Kind && p.Producer == ev.Producer && p.Module == ev.Module && p.Hash == ev.Hash &&
		p.Path == ev.Path && p.Signature == ev.Signature && p.Reason == ev.Reason && p.Detail == ev.Detail &&
		p.Duration == ev.Duration && p.Count == ev.Count
}

// classify turns one record's message into events and reports whether it recognised it. Each
// framework's rules are tried in turn; within a framework the first rule whose literal test
// passes decides.
func (s *Scanner) classify(msg string, h header, lineNo int) bool {
	s.flushHeld()
	var pairs pairSet
	filled := false
	for i, fw := range s.g.frameworks {
		for j := range fw.Rules {
			r := &fw.Rules[j]
			if r.Prefix != "" && !strings.HasPrefix(msg, r.Prefix) {
				continue
			}
			if r.Contains != "" {
				if !filled {
					pairs.fill(msg)
					filled = true
				}
				if !pairs.has(s.g.rulePairs[i][j]) || !strings.Contains(msg, r.Contains) {
					continue
				}
			}
			c := s.context(i, h, lineNo)
			if !r.ProducerFromLayout {
				c.h.producer = ""
			}
			n := len(s.pending)
			ok := r.Handle(c, msg)
			s.depth--
			if r.ByEffect {
				ok = len(s.pending) > n || s.held != nil
			}
			if ok {
				return true
			}
			break
		}
	}
	return false
}

// context is a Context for one handler call, from the Scanner's stack of them (a handler's
// Hold may flush a held record whose done classifies again): the caller gives it back with
// s.depth-- when the handler returns. Handlers do not keep a Context (Context says so).
func (s *Scanner) context(fw int, h header, line int) *Context {
	if s.depth == len(s.contexts) {
		s.contexts = append(s.contexts, new(Context))
	}
	c := s.contexts[s.depth]
	*c = Context{s: s, fw: fw, h: h, line: line}
	s.depth++
	return c
}

// apart says whether two events' own record times differ by more than their stamps' precision
// can hide: a millisecond when both print milliseconds or finer, else a second.
func apart(a, b Event) bool {
	d := a.Time.Sub(b.Time)
	if d < 0 {
		d = -d
	}
	if fraction(a.Stamp) >= 3 && fraction(b.Stamp) >= 3 {
		return d >= time.Millisecond
	}
	return d >= time.Second
}

// fraction is how many digits of a second a stamp prints (after its last '.' or ',').
func fraction(stamp string) int {
	i := strings.LastIndexAny(stamp, ".,")
	if i < 0 {
		return 0
	}
	n := 0
	for _, c := range stamp[i+1:] {
		if c < '0' || c > '9' {
			break
		}
		n++
	}
	return n
}

// noteThread keeps a thread id a record's prefix named.
// threadID is a record's thread id as a string: the one Stats.Threads already holds where it is
// there (no allocation for each record of a thread).
func (s *Scanner) threadID(thread []byte) string {
	for _, t := range s.stats.Threads {
		if t == string(thread) {
			return t
		}
	}
	return string(thread)
}

func (s *Scanner) noteThread(id string) {
	if len(s.stats.Threads) < MaxThreads && !slices.Contains(s.stats.Threads, id) {
		s.stats.Threads = append(s.stats.Threads, id)
	}
}
