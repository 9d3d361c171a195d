package logscan

import (
	"regexp"
	"testing"
	"time"
)

var stampCases = []string{
	"2024-05-02 10:00:02.123456", "2024-02-29 23:59:59.999999", "2023-02-29 10:00:00.000000", "2024-13-01 10:00:00.000000",
	"2024-00-10 10:00:00.000000", "2024-04-31 10:00:00.000000", "2024-04-30 24:00:00.000000", "2024-04-30 23:60:00.000000",
	"2024-04-30 23:59:60.000000", "0000-01-01 00:00:00.000000", "2024-05-02 10:00:02.12345", "2024-05-02T10:00:02.123456",
	"2024-05-02 10:00:02,123456", "2024-05-0a 10:00:02.123456", "1900-02-29 10:00:00.000000", "2000-02-29 10:00:00.000000",
	"2024-05-00 10:00:00.000000", "0000-01-01 0:00:00,000000", "0000-01-01  0:00:00,000000", "",
}

// checkStamp: what stampTime reads is what time.Parse reads; it reads every stamp written
// digit for digit as the layout is that time.Parse reads (time.Parse also takes a one-digit
// hour and runs of spaces, which parseTime leaves to it); parseTime agrees with time.Parse.
var reCanonicalStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.,]\d{6}$`)

func checkStamp(t *testing.T, v string) {
	t.Helper()
	want, err := time.Parse(stampLayout, v)
	got, ok := stampTime(v)
	if ok && (err != nil || !got.Equal(want) || got.Location() != want.Location()) ||
		!ok && err == nil && reCanonicalStamp.MatchString(v) {
		t.Fatalf("stampTime(%q) = %v, %v; time.Parse: %v, %v", v, got, ok, want, err)
	}
	if pt, pok := parseTime(stampLayout, v, true); pok != (err == nil) || !pt.Equal(want) {
		t.Fatalf("parseTime(%q) = %v, %v; time.Parse: %v, %v", v, pt, pok, want, err)
	}
}

func TestStampTime(t *testing.T) {
	for _, v := range stampCases {
		checkStamp(t, v)
	}
	if _, ok := stampTime(stampCases[0]); !ok {
		t.Error("a good stamp refused")
	}
}

// FuzzStampTime holds stampTime to time.Parse.
func FuzzStampTime(f *testing.F) {
	for _, v := range stampCases {
		f.Add(v)
	}
	f.Fuzz(checkStamp)
}

var reSlurm = regexp.MustCompile(`^(\d{1,5}): `)

func checkSlurm(t *testing.T, seg string) {
	t.Helper()
	n := slurmLabel([]byte(seg))
	m := reSlurm.FindStringSubmatch(seg)
	if (n > 0) != (m != nil) || m != nil && (seg[:n] != m[1] || n+2 != len(m[0])) {
		t.Fatalf("slurmLabel(%q) = %d, the regexp: %q", seg, n, m)
	}
}

func TestSlurmLabel(t *testing.T) {
	for _, s := range []string{"3: x", "00012: x", "123456: x", "12:x", "1: ", "1:", "a1: x", "2024-05-02 10:00", "7:  x", ""} {
		checkSlurm(t, s)
	}
}

// FuzzSlurmLabel holds slurmLabel to the regexp it replaces.
func FuzzSlurmLabel(f *testing.F) {
	f.Add("3: x")
	f.Add("12345: y")
	f.Fuzz(checkSlurm)
}
