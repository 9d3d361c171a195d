package diff

// Advice is what to do about a cause of a kind: the advice a Cause of that kind carries.
func Advice(kind CauseKind) string { return advice[kind] }
