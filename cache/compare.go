package cache

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/logscan"
)

// Why cache B's entries are not cache A's: each entry of B (the one a run used, or a pod's)
// whose key A does not hold is held against A's entry of the same kind whose key's parts agree
// most, and the parts are set side by side, those that differ first, the one that decides
// named first: a version, then the devices, the flags or config, the environment, the inputs'
// metadata, and last the graph (a new version or new flags change every graph's key; a new
// graph changes one).

// Comparison is cache B held against cache A.
type Comparison struct {
	// Entries are B's listed entries, in B's order.
	Entries []*KeyComparison
	// Held counts B's entries whose key A holds too.
	Held int
}

// KeyComparison is one entry of cache B held against cache A.
type KeyComparison struct {
	Kind EntryKind
	// B is B's entry (its path); A the entry of A it is held against ("" when A has none of
	// its kind). InA says A holds B's key itself: B's entry could have come from A.
	B, A string
	InA  bool
	// Parts are the key's parts side by side: those that differ first (the deciding one
	// leading), then those that agree.
	Parts []PartPair
	// Differs are the kinds of part that differ, the deciding one first.
	Differs []framework.KeyPart
	// Summary says it in a sentence; Remedy is the stack's remedy for the deciding part.
	Summary, Remedy string
}

// PartPair is one part of a key in A and in B ("" where one lacks it).
type PartPair struct {
	Part       framework.KeyPart
	Name, A, B string
}

// Differ says whether the two sides of a part differ.
func (p PartPair) Differ() bool { return p.A != p.B }

// partOrder is the order in which the parts that differ are named: the first decides.
var partOrder = framework.KeyPartOrder

// Compare holds the listed entries of inventory b against those of a.
func Compare(a, b *Inventory) *Comparison {
	out := &Comparison{}
	keys := map[string]bool{}
	for _, e := range a.Entries {
		if e.Kind != EntryOther && e.Key != "" {
			keys[fullKey(e)] = true
		}
	}
	for _, e := range b.Entries {
		if e.Kind == EntryOther || e.Lock {
			continue
		}
		c := &KeyComparison{Kind: e.Kind, B: entryPath(e)}
		if e.Key != "" && keys[fullKey(e)] {
			c.InA = true
			out.Held++
		}
		if other := counterpartOf(a.Entries, e); other != nil {
			c.A = entryPath(other)
			c.Parts = sideBySide(other.Parts, e.Parts)
		}
		describe(c, e)
		out.Entries = append(out.Entries, c)
	}
	return out
}

// fullKey is an entry's key with every part its path spells out (Neuron's compiler version is
// a folder above the MODULE_ a log names).
func fullKey(e *CacheEntry) string {
	k := string(e.Kind) + "\x00" + e.Key
	for _, f := range e.Parts {
		k += "\x00" + f.Name + "=" + f.Value
	}
	return k
}

func entryPath(e *CacheEntry) string { return strings.TrimSuffix(e.Dir, "/") + "/" + e.Name }

// counterpartOf is A's entry of e's kind whose key agrees with e's in the most parts (the
// same key first; ties by name, A's entries being in name order).
func counterpartOf(as []*CacheEntry, e *CacheEntry) *CacheEntry {
	var best *CacheEntry
	bestScore := -1
	for _, a := range as {
		if a.Kind != e.Kind || a.Lock {
			continue
		}
		score := 0
		if a.Key != "" && a.Key == e.Key {
			score = 1 << 20
		}
		for _, f := range e.Parts {
			if slices.Contains(a.Parts, f) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = a, score
		}
	}
	return best
}

// sideBySide pairs the parts of two keys by name: those that differ first, in partOrder, then
// those that agree, each group in B's order (then A's).
func sideBySide(a, b []framework.Factor) []PartPair {
	var pairs []PartPair
	seen := map[string]int{}
	for _, f := range b {
		if _, ok := seen[f.Name]; ok {
			continue
		}
		seen[f.Name] = len(pairs)
		pairs = append(pairs, PartPair{Part: f.Part, Name: f.Name, B: f.Value})
	}
	for _, f := range a {
		if i, ok := seen[f.Name]; ok {
			pairs[i].A = f.Value
			continue
		}
		seen[f.Name] = len(pairs)
		pairs = append(pairs, PartPair{Part: f.Part, Name: f.Name, A: f.Value})
	}
	rank := func(p PartPair) int {
		if !p.Differ() {
			return len(partOrder)
		}
		return slices.Index(partOrder, p.Part)
	}
	slices.SortStableFunc(pairs, func(x, y PartPair) int { return rank(x) - rank(y) })
	return pairs
}

// describe sets what differs, the sentence and the remedy.
func describe(c *KeyComparison, e *CacheEntry) {
	c.setDiffers()
	switch {
	case c.InA:
		c.Summary = fmt.Sprintf("cache A holds this key too (%s): a run that looked in A could have been served", c.A)
		return
	case c.A == "":
		c.Summary = fmt.Sprintf("cache A holds no %s entry to hold it against", e.Kind)
		return
	case len(c.Differs) == 0:
		c.Summary = fmt.Sprintf("not in cache A, and the parts of its key recomp can read agree with %s: the key differs in a part its files do not spell out", c.A)
	default:
		c.Summary = fmt.Sprintf("not in cache A: its key's %s part differs from %s's: %s", c.Differs[0], c.A, c.differing())
	}
	c.setRemedy(e)
}

// setRemedy sets the remedy that the stack of entry e gives for the deciding part that
// differs (framework.KeyOther when none of the parts recomp reads does).
func (c *KeyComparison) setRemedy(e *CacheEntry) {
	if e == nil || e.tree == nil {
		return
	}
	part := framework.KeyOther
	if len(c.Differs) > 0 {
		part = c.Differs[0]
	}
	c.Remedy = e.tree.Remedy[part]
}

// setDiffers sets the kinds of part that differ, in the parts' order (the deciding one first).
func (c *KeyComparison) setDiffers() {
	for _, p := range c.Parts {
		if p.Differ() && !slices.Contains(c.Differs, p.Part) {
			c.Differs = append(c.Differs, p.Part)
		}
	}
}

// differing says the parts of the deciding kind that differ, old → new (the first three, with
// how many more), and the other kinds that differ too.
func (c *KeyComparison) differing() string {
	first := c.Differs[0]
	var named []string
	n := 0
	for _, p := range c.Parts {
		if p.Differ() && p.Part == first {
			n++
			if len(named) < 3 {
				named = append(named, fmt.Sprintf("%s %s → %s", p.Name, orNone(p.A), orNone(p.B)))
			}
		}
	}
	s := strings.Join(named, "; ")
	if n > len(named) {
		s += fmt.Sprintf(" (and %d more)", n-len(named))
	}
	if len(c.Differs) > 1 {
		var also []string
		for _, p := range c.Differs[1:] {
			also = append(also, p.String())
		}
		s += "; " + strings.Join(also, ", ") + " differ too"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// maxMissParts bounds the missed keys whose parts a LogUse keeps.
const maxMissParts = 1000

// missedAgainst holds each key a run missed (its parts, as the run's record lists them) against
// the entry of entries whose key agrees in the most parts, the entry written under the same key
// left out (the run wrote it after it missed), and so are entries written after that one (not
// there when the run looked): B is the key, A that entry. A part's kind is the one the entries
// give a part of its name (KeyOther where none does).
func missedAgainst(entries []*CacheEntry, missed map[string][]logscan.KeyPart) []*KeyComparison {
	if len(missed) == 0 {
		return nil
	}
	kinds := map[string]framework.KeyPart{}
	written := map[string]*CacheEntry{} // the entry a missed key was then written as
	for _, e := range entries {
		for _, f := range e.Parts {
			if _, ok := kinds[f.Name]; !ok {
				kinds[f.Name] = f.Part
			}
		}
		if _, ok := missed[e.Key]; ok && e.Key != "" {
			written[e.Key] = e
		}
	}
	keys := make([]string, 0, len(missed))
	for k := range missed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []*KeyComparison
	for _, key := range keys {
		parts := make([]framework.Factor, 0, len(missed[key]))
		for _, p := range missed[key] {
			part, ok := kinds[p.Name]
			if !ok {
				part = framework.KeyOther
			}
			parts = append(parts, framework.Factor{Part: part, Name: p.Name, Value: p.Value})
		}
		miss := &CacheEntry{Key: key, Parts: parts}
		w := written[key]
		if w != nil {
			miss.Kind = w.Kind
		}
		var others []*CacheEntry
		for _, e := range entries {
			if e.Key == key || len(e.Parts) == 0 || miss.Kind != "" && e.Kind != miss.Kind {
				continue
			}
			if w != nil && !w.ModTime.IsZero() && e.ModTime.After(w.ModTime) {
				continue // written after the run wrote the key it missed: not there when it looked
			}
			others = append(others, e)
		}
		c := &KeyComparison{Kind: miss.Kind, B: key}
		var tree *CacheEntry
		if other := counterpartOf(others, miss); other != nil && (miss.Kind != "" || other.Kind != "") {
			c.A, c.Kind, tree = entryPath(other), other.Kind, other
			c.Parts = sideBySide(other.Parts, parts)
		}
		describeMiss(c, tree)
		out = append(out, c)
	}
	return out
}

// describeMiss sets what differs between a missed key and the entry it is held against, the
// sentence and the remedy (the entry's stack's for the deciding part).
func describeMiss(c *KeyComparison, against *CacheEntry) {
	c.setDiffers()
	switch {
	case against == nil:
		c.Summary = "the run missed this key, and the cache holds no other entry of its kind to hold it against: it was empty of it"
		return
	case len(c.Differs) == 0:
		c.Summary = fmt.Sprintf("the run missed this key; the parts its record lists agree with %s: the key differs in a part the record does not list", c.A)
	default:
		c.Summary = fmt.Sprintf("the run missed this key: its %s part differs from %s's, the cache's nearest entry: %s", c.Differs[0], c.A, c.differing())
	}
	c.setRemedy(against)
}
