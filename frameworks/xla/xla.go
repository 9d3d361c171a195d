// Package xla is recomp's unit for what the XLA compiler prints itself, under whichever front
// end drives it (JAX, TensorFlow, PyTorch/XLA, Reactant.jl): its slow-compile alarm, which
// names the module being compiled and, once it is done, how long it took. It is no stack a
// user picks (`recomp run --framework`): package frameworks adds its messages to every
// stack's grammar.
package xla

import (
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name.
const Name = "xla"

// Dump is how XLA is told to dump the HLO of its compilations as text into a folder.
var Dump = &framework.Dump{Variable: "XLA_FLAGS", To: "--xla_dump_to", AsText: "--xla_dump_hlo_as_text"}

// Framework is XLA's own messages.
var Framework = &framework.Framework{
	Name:  Name,
	Title: "XLA",
	Log:   messages,
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"module ", "HLO", "XLA", "xla_", "PTX"},
		Actions:  []string{"ompil", "OMPIL"},
		Sweep:    slices.Concat(framework.CompileForms, framework.CompileFormsUpper),
		// XLA GPU's lines about ptxas, which it runs for each module it compiles ("ptxas warning
		// : Registers are spilled…", "Falling back to the CUDA driver for PTX compilation; ptxas
		// does not support CC 9.0", "Couldn't get ptxas version"): part of a compilation that
		// other lines count, none of them one.
		Known: []string{"ptxas"},
	},
	Dump: Dump,
	Unfinished: func(logscan.Producer) (string, string, bool) {
		return "XLA's slow-compile alarm fired for this module and the log does not show the compilation end: it had run for over " +
				"2 minutes, and was still running where the log stops (or the log was cut)",
			"dump the module (XLA_FLAGS=--xla_dump_to=DIR) to see what makes it slow to compile; a compilation that never ends is worth a bug report with that dump", true
	},
}

// Messages of xla/service/slow_operation_alarm.cc (TF's copy, external/org_tensorflow/…/
// compiler/xla/service, before 2023; openxla's external/xla/xla/service after), in two
// layouts. The alarm fires when a compilation has run for 2 minutes (10 s in a build without
// optimisations, which says "Slow compile?"), for the 1st, 2nd, 4th, 8th, … such compilation of
// the process: the alarms are a lower bound of the slow compilations. The oldest layout (2019)
// names no module; the newest puts it in brackets before "The operation took" too:
//
//	E …/slow_operation_alarm.cc:55]            (≤ 2022: the message on the lines after)
//	********************************
//	Very slow compile?  If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.
//	Compiling module jit__threefry_split__3.20
//	********************************
//
//	E …/slow_operation_alarm.cc:73]            (2023 on: the module first, in brackets)
//	********************************
//	[Compiling module reactant_loop_] Very slow compile? If you want to file a bug, …
//	********************************
//
// and, in the newer layout, when the compilation ends after the alarm fired:
//
//	E …/slow_operation_alarm.cc:140] The operation took 2m12.850942799s
//
//	********************************
//	[Compiling module reactant_loop_] Very slow compile? …
//	********************************
//
// The second copy of the alarm's text is part of the "took" record, not a second alarm.
// The alarm times other slow operations too ("Constant folding an instruction is taking >
// 1s"); only "Very slow compile?" is a compilation.
var (
	reAlarmNew  = lazyre.New(`^\[(?:Compiling module ([^\]\s]+) *|[^\]]*)\] (?:Very s|S)low compile\?`)
	reAlarmOld  = lazyre.New(`^(?:Very s|S)low compile\?`)
	reModule    = lazyre.New(`^\s*Compiling module (\S+)\s*$`)
	reStars     = lazyre.New(`^\s*\*{8,}\s*$`)
	reTook      = lazyre.New(`^(?:\[(?:Compiling module ([^\]\s]+) *|[^\]]*)\] )?The operation took (\S+)`)
	reAbslParts = lazyre.New(`^(?:\d+(?:\.\d+)?(?:h|m|s|ms|us|ns))+$`)
)

// echoLines bounds how far below a "took" record the alarm's text that it repeats may be.
const echoLines = 6

// state follows the alarm within one process.
type state struct {
	open     string        // the module whose alarm fired and whose end is not seen yet ("": not named)
	opened   bool          // an alarm fired and its end is not seen yet
	echoAt   int           // the line of the last "took" record (its alarm text follows)
	took     time.Duration // a "took" record's time with no alarm before it in the log
	tookOpen bool
}

var messages = &logscan.Framework{
	Name:     Name,
	Anchors:  []string{"w compile?", "ration took"},
	Heads:    []string{"Very slow compile?", "Slow compile?", "[Compiling module ", "The operation took "},
	NewState: func() any { return &state{} },
	Rules: []logscan.Rule{
		{Contains: "low compile?", Handle: func(c *logscan.Context, msg string) bool {
			if m := reAlarmNew.FindStringSubmatch(msg); m != nil {
				alarm(c, c.Mark(), m[1])
				return true
			}
			if !reAlarmOld.MatchString(msg) {
				return false
			}
			// The module is named on the line after.
			c.Hold(msg, func(l []byte) bool { return reModule.Match(l) || reStars.Match(l) }, func(c *logscan.Context, lines []string) {
				module := ""
				for _, l := range lines[1:] {
					if m := reModule.FindStringSubmatch(l); m != nil {
						module = m[1]
						break
					}
				}
				alarm(c, c.Mark(), module)
			})
			return true
		}},
		{Contains: "The operation took ", Handle: func(c *logscan.Context, msg string) bool {
			m := reTook.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			d, ok := abslDuration(m[2])
			if !ok {
				return false
			}
			st := c.State().(*state)
			st.echoAt = c.Line()
			if st.opened {
				module := st.open
				if module == "" {
					module = m[1]
				}
				c.Emit(logscan.Event{Kind: logscan.CompileEnd, Producer: logscan.ProducerXLA, Signal: "xla:slow_compile_took",
					Module: module, Duration: d})
				st.open, st.opened, st.tookOpen = "", false, false
				return true
			}
			// The alarm's text that follows says whether it was a compilation.
			st.took, st.tookOpen = d, true
			return true
		}},
	},
}

// alarm reads the alarm for module (at the record m): a compilation that has run for a while,
// or the repeat of its text that follows a "took" record.
func alarm(c *logscan.Context, m logscan.Mark, module string) {
	st := c.State().(*state)
	if st.echoAt > 0 && c.Line()-st.echoAt <= echoLines {
		st.echoAt = 0
		if st.tookOpen { // the end of a compilation whose alarm is not in the log
			st.tookOpen = false
			c.EmitAt(m, logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerXLA, Signal: "xla:slow_compile", Module: module,
				Detail: "XLA's slow-compile alarm"})
			c.EmitAt(m, logscan.Event{Kind: logscan.CompileEnd, Producer: logscan.ProducerXLA, Signal: "xla:slow_compile_took",
				Module: module, Duration: st.took})
		}
		return
	}
	// XLA raises the alarm once per compilation (for the 1st, 2nd, 4th, … slow one): another
	// alarm is another compilation.
	st.tookOpen = false
	st.open, st.opened = module, true
	c.EmitAt(m, logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerXLA, Signal: "xla:slow_compile", Module: module,
		Detail: "XLA's slow-compile alarm"})
}

// abslDuration reads absl::FormatDuration's text ("2m12.850942799s", "1h0m3s", "750ms").
func abslDuration(v string) (time.Duration, bool) {
	if !reAbslParts.MatchString(v) {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	return d, err == nil && d >= 0
}
