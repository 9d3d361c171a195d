package diff

// tally sorts every change of a comparison into the groups the cause rules read. Each group
// keeps its first maxTally changes; Result.Counts counts them all.
type tally struct {
	params    []Change // shape, dtype and layout changes of entry parameters
	results   []Change // shape, dtype and layout changes of the entry computation's result
	constants []Change
	sharding  []Change
	header    []Change
	structure []Change // instructions and computations added or removed, opcode changes
	layouts   []Change
	attrs     []Change
	dtypes    []Change
	shapes    []Change
	elided    int // constants elided ({...}) on both sides
	handles   int // host-callback handles that differ (not counted as changes)
	// paramsA, paramsB count the entry parameters: when they differ, the entry layout and
	// the donation settings follow.
	paramsA, paramsB int
	addedOps         map[string]int
	removedOps       map[string]int
	// materialized are entry parameters of B that took the place of a value A computed from
	// constants; removedComputed counts the instructions removed whose value did not follow
	// from constants alone.
	materialized    []Change
	removedComputed int
	// carried are entry parameters of B that hold state A created and returned (carriedState);
	// unfed counts the instructions B added that none of them feeds and that are not plumbing.
	carried []Change
	unfed   int
}

const maxTally = 4 * MaxChanges

func newTally() *tally {
	return &tally{addedOps: map[string]int{}, removedOps: map[string]int{}}
}

func keep(l *[]Change, ch Change) {
	if len(*l) < maxTally {
		*l = append(*l, ch)
	}
}

func (t *tally) add(ch Change) {
	typeChange := ch.Kind == KindShape || ch.Kind == KindDtype || ch.Kind == KindLayout
	if ch.oldShape.Known() != ch.newShape.Known() {
		typeChange = false // a shape the text left out on one side: no input or result changed type
	}
	switch {
	case ch.EntryParam() && typeChange && !ch.inputToConstant:
		keep(&t.params, ch)
	case ch.Root && ch.Entry && typeChange:
		keep(&t.results, ch)
	}
	switch ch.Kind {
	case KindConstant:
		keep(&t.constants, ch)
	case KindSharding, KindReplicaGroups:
		keep(&t.sharding, ch)
	case KindHeader:
		keep(&t.header, ch)
	case KindAdded, KindRemoved, KindCompAdded, KindCompRemoved, KindOpcode:
		keep(&t.structure, ch)
	case KindLayout:
		keep(&t.layouts, ch)
	case KindAttribute, KindBackendConfig:
		keep(&t.attrs, ch)
	case KindDtype:
		keep(&t.dtypes, ch)
	case KindShape:
		keep(&t.shapes, ch)
	}
}
