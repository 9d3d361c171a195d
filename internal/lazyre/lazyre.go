// Package lazyre holds the regular expressions of recomp's packages compiled on their first
// use rather than when the program starts. The stacks' units and the scanner keep some 190 of
// them in package variables; compiled at init they cost a few milliseconds of every run of the
// binary, `recomp --version` and the pytest plugin's two calls a session included, though most
// commands use a handful. A Regexp has the methods of regexp.Regexp that recomp calls, so
// that a package variable changes only its constructor; after the first call each costs one
// atomic load more than regexp's own.
//
// An invalid expression panics at its first use, as regexp.MustCompile does at init: the
// test of this package compiles every expression New is given in the module's source, so
// that a typo fails the tests, not a user's run, and refuses a package variable compiled with
// regexp.MustCompile.
package lazyre

import (
	"regexp"
	"sync/atomic"
)

// Regexp is a regular expression compiled on its first use. It is safe for concurrent use.
type Regexp struct {
	expr string
	re   atomic.Pointer[regexp.Regexp]
}

// New returns the regular expression expr, to be compiled (regexp.MustCompile) on its first
// use. expr should be a constant: the package's test checks every literal one in the module.
func New(expr string) *Regexp {
	return &Regexp{expr: expr}
}

// Regexp returns the compiled expression, compiling it if it is not yet; it panics when expr
// does not compile.
func (r *Regexp) Regexp() *regexp.Regexp {
	if re := r.re.Load(); re != nil {
		return re
	}
	return r.compile()
}

// compile compiles the expression; of goroutines that race to compile it, all return the one
// stored first.
func (r *Regexp) compile() *regexp.Regexp {
	re := regexp.MustCompile(r.expr)
	if r.re.CompareAndSwap(nil, re) {
		return re
	}
	return r.re.Load()
}

// String returns the source text of the expression, without compiling it.
func (r *Regexp) String() string { return r.expr }

// Match is regexp.Regexp.Match.
func (r *Regexp) Match(b []byte) bool { return r.Regexp().Match(b) }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

// Find is regexp.Regexp.Find.
func (r *Regexp) Find(b []byte) []byte { return r.Regexp().Find(b) }

// FindIndex is regexp.Regexp.FindIndex.
func (r *Regexp) FindIndex(b []byte) []int { return r.Regexp().FindIndex(b) }

// FindSubmatch is regexp.Regexp.FindSubmatch.
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.Regexp().FindSubmatch(b) }

// FindSubmatchIndex is regexp.Regexp.FindSubmatchIndex.
func (r *Regexp) FindSubmatchIndex(b []byte) []int { return r.Regexp().FindSubmatchIndex(b) }

// FindAllIndex is regexp.Regexp.FindAllIndex.
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.Regexp().FindAllIndex(b, n) }

// FindAllSubmatch is regexp.Regexp.FindAllSubmatch.
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.Regexp().FindAllSubmatch(b, n)
}

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.Regexp().FindString(s) }

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

// FindAllString is regexp.Regexp.FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAll is regexp.Regexp.ReplaceAll.
func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.Regexp().ReplaceAll(src, repl) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

// ReplaceAllLiteralString is regexp.Regexp.ReplaceAllLiteralString.
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Regexp().ReplaceAllLiteralString(src, repl)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}

// Split is regexp.Regexp.Split.
func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }

// NumSubexp is regexp.Regexp.NumSubexp.
func (r *Regexp) NumSubexp() int { return r.Regexp().NumSubexp() }

// SubexpNames is regexp.Regexp.SubexpNames.
func (r *Regexp) SubexpNames() []string { return r.Regexp().SubexpNames() }

// SubexpIndex is regexp.Regexp.SubexpIndex.
func (r *Regexp) SubexpIndex(name string) int { return r.Regexp().SubexpIndex(name) }
