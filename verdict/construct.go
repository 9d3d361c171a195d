package verdict

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/ledger"
)

// Causes only a framework's own words name: the construct in the user's program that made the
// framework trace again, which a comparison of the graphs sees only as its effect (a constant,
// a structure change) or not at all (identical graphs).
const (
	// KindStaticArgument: a static argument (JAX static_argnums/static_argnames) took a new
	// value. JAX compares the tracing context, the input pytree, the argument names and the
	// argument types of the closest earlier trace and finds them all equal ("cache miss
	// explanation unavailable"; 0.4: "explanation unavailable!"): what differs is the part of its
	// cache key it does not compare, the static arguments.
	KindStaticArgument = string(cause.StaticArgument)
	// KindPytree: the input pytree changed (a dict gained or lost a key, None became a tuple):
	// JAX's "different input pytree" names the path and, for dicts, the keys.
	KindPytree = string(cause.Pytree)
	// KindPythonScalar: a Python number argument that a tracer specialised on its value
	// changed: dynamo's guard failure "temperature == 1.0" (torch.compile).
	KindPythonScalar = string(cause.PythonScalar)
)

var (
	rePytreePath = regexp.MustCompile(`at input path (\S+), now (.+?) and before (.+?), so `)
	reKeySets    = regexp.MustCompile(`symmetric difference of key sets: (\{.*?\})`)
	reChildren   = regexp.MustCompile(`with (\d+) children`)
	reClass      = regexp.MustCompile(`<class '([^']+)'>`)
	reArgPath    = regexp.MustCompile(`^\[0\]\[(\d+)\]`)
	// dynamo's guard on a Python value: "temperature == 1.0", "L['lr'] == 0.1", after "- 0/0: "
	reDynamoEq = regexp.MustCompile(`(?m)^\s*(?:- \d+/\d+: )?(?:L\['(\w+)'\]|(\w+)) == (-?[\d.eE+-]+|True|False)\s*(?:#|$)`)
)

// constructCause reads the framework's explanation of a recompilation for the user's construct
// it names: a static argument or a pytree change. It returns the kind, what changed and the
// framework's own words that show it; ok is false when the words name neither.
func constructCause(why string) (kind, ch, said string, ok bool) {
	switch {
	case strings.Contains(why, "explanation unavailable"):
		said = "cache miss explanation unavailable"
		if strings.Contains(why, "explanation unavailable!") {
			said = "explanation unavailable!"
		}
		return KindStaticArgument, "a static argument took a new value (JAX found the input pytree, the argument names and their types unchanged)", said, true
	case strings.Contains(why, "different input pytree"):
		m := rePytreePath.FindStringSubmatch(why)
		if m == nil {
			return KindPytree, "the input pytree changed", "different input pytree", true
		}
		said = strings.TrimSpace(m[0][:len(m[0])-len(", so ")])
		where := "input path " + m[1]
		if a := reArgPath.FindStringSubmatch(m[1]); a != nil {
			where += " (positional argument " + a[1] + ", counted from 0)"
		}
		if k := reKeySets.FindStringSubmatch(why); k != nil {
			said += ", … " + k[0]
			verb := "changed"
			if n, b := reChildren.FindStringSubmatch(m[2]), reChildren.FindStringSubmatch(m[3]); n != nil && b != nil {
				switch {
				case len(n[1]) > len(b[1]) || len(n[1]) == len(b[1]) && n[1] > b[1]:
					verb = "added"
				case n[1] != b[1]:
					verb = "removed"
				}
			}
			return KindPytree, fmt.Sprintf("%s: key %s %s", where, k[1], verb), said, true
		}
		return KindPytree, fmt.Sprintf("%s: %s → %s", where, className(m[3]), className(m[2])), said, true
	}
	if m := reDynamoEq.FindStringSubmatch(why); m != nil {
		name := m[1] + m[2]
		said = strings.TrimSpace(m[0])
		said = strings.TrimSpace(strings.TrimSuffix(said, "#"))
		return KindPythonScalar, fmt.Sprintf("the Python value %s changed from %s: dynamo had specialised the function on it", name, m[3]), said, true
	}
	return "", "", "", false
}

// className is a pytree node as JAX prints it, its class name without <class '…'>.
func className(s string) string {
	return strings.TrimSpace(reClass.ReplaceAllString(s, "$1"))
}

// overrides says whether a construct the framework names says more than the comparison's main
// cause: the graphs show only the construct's effect (a baked-in constant, a structure change)
// or nothing (identical graphs).
func overrides(kind string, c diff.CauseKind) bool {
	switch c {
	case diff.CauseGraphStructure, diff.CauseIdentical:
		return true
	case diff.CauseConstant:
		return kind == KindStaticArgument || kind == KindPythonScalar
	}
	return false
}

// saidBy is who says a construct's words, when not the stack itself: dynamo's guards.
func saidBy(kind string) string {
	if kind == KindPythonScalar {
		return "dynamo"
	}
	return ""
}

// variants counts a program's distinct variants (graph hash, else JAX's argument signature) and the
// compilations of a variant its process had compiled before; (0, 0) when a compilation names
// neither.
func variants(compiled []*ledger.Unit) (distinct, repeated int) {
	seen, inProcess := map[string]bool{}, map[string]bool{}
	for _, u := range compiled {
		key := u.Hash
		if fw := frameworks.ForProducer(u.Producer); key == "" && fw != nil && fw.Name == "jax" {
			key = u.Signature // JAX's argument shapes and types; other stacks' signatures name no variant
		}
		if key == "" {
			return 0, 0
		}
		if !seen[key] {
			seen[key] = true
			distinct++
		}
		if p := fmt.Sprint(u.Input) + "\x00" + key; inProcess[p] {
			repeated++ // compiled again in the same process; one in each of two processes is none
		} else {
			inProcess[p] = true
		}
	}
	return distinct, repeated
}
