package torch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/internal/lazyre"
)

// dynamo's guard failures (torch 2.1–2.9, from torch/csrc/dynamo/guards.cpp and guards.py), as
// its recompile records give them, one a line after "- 0/0: " (the entry that failed):
var (
	// tensor 'x' size mismatch at index 1. expected 16, actual 24 (and stride): the input named
	// as dynamo's source, L['x'] or x.
	reTensorDim = lazyre.New(`tensor '(.+?)' (size|stride) mismatch at index (\d+)\. expected (\d+), actual (\d+)`)
	// tensor 'x' dtype mismatch. expected Float, actual Double
	reTensorDtype = lazyre.New(`tensor '(.+?)' dtype mismatch\. expected (\w+), actual (\w+)`)
	// tensor 'x' requires_grad mismatch. expected requires_grad=0; Tensor device index mismatch
	reTensorOther = lazyre.New(`tensor '(.+?)' (requires_grad|Tensor device index|dispatch key set|rank) mismatch`)
	// dynamo's guard on a Python value: "temperature == 1.0", "L['lr'] == 0.1", "G['G'] == 2.0",
	// after "- 0/0: ", a source comment after it.
	reDynamoEq = lazyre.New(`(?m)^\s*(?:- )?(?:\d+/\d+: )?(?:[LG]\['(\w+)'\]|(\w+)) == (-?[\d.eE+-]+|True|False)\s*(?:#|$)`)
	// a module's training flag: "fn._modules['1'].training == True", "L['self'].training == False"
	reTraining = lazyre.New(`(?m)^\s*(?:- )?(?:\d+/\d+: )?(\S+?)\.training == (True|False)\b`)
	// the global state dynamo guards: "GLOBAL_STATE changed: grad_mode" (2.4+), "___check_global_state()"
	reGlobal = lazyre.New(`GLOBAL_STATE changed: ([\w, ]+?)\s*$|___check_global_state\(\)`)
	// a function or object dynamo guards by identity: ___check_obj_id(L['fn'], 1403…)
	reObjID = lazyre.New(`___check_obj_id\((.+?), \d+\)`)
)

// reEntryID is the cached entry a guard failure is of, before it ("- 0/1: ", "0/1: ").
var reEntryID = lazyre.New(`^\s*(?:- )?(\d+/\d+): `)

// facts reads dynamo's guard failures (why: one a line, each after the id of the cached entry
// that failed, the entry compiled last first) into the facts they state.
//
// Where some entries failed on a mode (a module's training flag, grad mode or another global
// setting) and another on something else alone, the compilation is in that other entry's mode:
// the mode failures are of entries compiled for other modes, and the cause is what differed from
// the entry of its own (an evaluation's partial batch after its first evaluation, with training's
// entry failing on grad mode).
func facts(why string) []cause.Fact {
	var out []cause.Fact
	entries := map[string][]int{} // by entry id: its facts, as indexes into out
	var ids []string
	id := ""
	for i, line := range strings.Split(why, "\n") {
		if m := reEntryID.FindStringSubmatch(line); m != nil {
			id = m[1]
		} else if i == 0 {
			id = "first" // the trace's reason keeps no id before its first entry
		}
		if f, ok := guardFact(line); ok {
			if _, seen := entries[id]; !seen {
				ids = append(ids, id)
			}
			entries[id] = append(entries[id], len(out))
			out = append(out, f)
		}
		if len(out) >= 8 {
			break
		}
	}
	if len(ids) < 2 {
		return out
	}
	ownMode := false // an entry that failed on no mode: the compilation is in its mode
	for _, id := range ids {
		if !slices.ContainsFunc(entries[id], func(k int) bool { return modeFact(out[k]) }) {
			ownMode = true
		}
	}
	if !ownMode {
		return out
	}
	return slices.DeleteFunc(out, modeFact)
}

// modeFact says a fact is of a mode dynamo guards: a module's training flag, or global state.
func modeFact(f cause.Fact) bool {
	return f.Kind == cause.ModuleMode || f.Kind == cause.GlobalState
}

// guardFact reads one guard failure.
func guardFact(line string) (cause.Fact, bool) {
	said := strings.TrimSpace(line)
	if i := strings.Index(said, "   #"); i >= 0 {
		said = strings.TrimSpace(said[:i]) // the source line dynamo appends
	}
	if m := reTensorDim.FindStringSubmatch(line); m != nil {
		arg := source(m[1])
		if m[2] == "stride" {
			return cause.Fact{Kind: cause.Layout, Arg: arg, Said: said,
				Change: fmt.Sprintf("`%s` stride %s: %s → %s", arg, m[3], m[4], m[5])}, true
		}
		kind := cause.InputShape
		if m[3] == "0" {
			kind = cause.BatchSize
		}
		return cause.Fact{Kind: kind, Arg: arg, Dim: m[3], Old: m[4], New: m[5], Said: said,
			Change: fmt.Sprintf("`%s` dimension %s: %s → %s", arg, m[3], m[4], m[5])}, true
	}
	if m := reTensorDtype.FindStringSubmatch(line); m != nil {
		arg := source(m[1])
		return cause.Fact{Kind: cause.Dtype, Arg: arg, Said: said, Change: fmt.Sprintf("`%s` %s → %s", arg, m[2], m[3])}, true
	}
	if m := reTensorOther.FindStringSubmatch(line); m != nil {
		arg := source(m[1])
		what := strings.TrimPrefix(m[2], "Tensor ")
		kind := cause.ModuleConfig
		if m[2] == "requires_grad" {
			kind = cause.GlobalState
		}
		return cause.Fact{Kind: kind, Arg: arg, Said: said, Change: fmt.Sprintf("`%s` %s changed", arg, what)}, true
	}
	if m := reTraining.FindStringSubmatch(line); m != nil {
		was, now := "train()", "eval()"
		if m[2] == "False" {
			was, now = now, was
		}
		return cause.Fact{Kind: cause.ModuleMode, Arg: module(m[1]), Said: said, Old: was, New: now,
			Change: fmt.Sprintf("the module's training flag changed: it had compiled in %s mode (%s)", was, module(m[1]))}, true
	}
	if m := reGlobal.FindStringSubmatch(line); m != nil {
		what := m[1]
		if what == "" {
			what = "grad mode, inference mode or another global setting"
		}
		return cause.Fact{Kind: cause.GlobalState, Said: said, Change: "global state changed: " + strings.ReplaceAll(what, "_", " ")}, true
	}
	if m := reObjID.FindStringSubmatch(line); m != nil {
		return cause.Fact{Kind: cause.FunctionRebuilt, Arg: source(m[1]), Said: said,
			Change: fmt.Sprintf("`%s` is a new object (a function, closure or module made again)", source(m[1]))}, true
	}
	if kind, name, ch, s, ok := guardedScalar(line); ok {
		return cause.Fact{Kind: kind, Arg: name, Change: ch, Said: s}, true
	}
	return cause.Fact{}, false
}

// source names a guard's source as the user wrote it: L['x'] → x, G['lr'] → lr,
// L['batch']['ids'] → batch['ids'].
func source(s string) string {
	for _, p := range []string{"L['", "G['"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			if name, tail, ok := strings.Cut(rest, "']"); ok {
				return name + tail
			}
		}
	}
	return s
}

// module names a module's source: fn._modules['1'] → submodule '1', L['self'] → the module.
func module(s string) string {
	s = source(s)
	if i := strings.LastIndex(s, "._modules['"); i >= 0 {
		return "submodule " + strings.TrimSuffix(s[i+len("._modules['"):], "']")
	}
	return s
}

// guardedScalar reads dynamo's guard failure on a Python number it had specialised the function
// on (an argument, a global, a closed-over value): the value changed.
func guardedScalar(why string) (kind cause.Kind, name, ch, said string, ok bool) {
	m := reDynamoEq.FindStringSubmatch(why)
	if m == nil {
		return "", "", "", "", false
	}
	name = m[1] + m[2]
	said = strings.TrimSpace(m[0])
	said = strings.TrimSpace(strings.TrimSuffix(said, "#"))
	return cause.PythonScalar, name, fmt.Sprintf("the Python value %s changed from %s: dynamo had specialised the function on it", name, m[3]), said, true
}
