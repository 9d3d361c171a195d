package report

func (*RunsDiff) command() string { return "diff" }
func (*Ranks) command() string    { return "ranks" }
