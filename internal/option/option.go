// Package option is the error of an option given a value it cannot have, or of options given
// together that exclude each other. The library names an option by its own name ("warmup");
// the caller names it as its user gave it (recomp's command line: "--warmup").
package option

import "fmt"

// Error is an error about options. Error() names them by their names; Named as the caller's
// user gave them.
type Error struct {
	options []string
	format  string // %[1]s… the options' names, then the values
	values  []any
}

// New is an error about options: in format, the options' names come first (%[1]s, %[2]s…),
// then the values.
func New(options []string, format string, values ...any) *Error {
	return &Error{options: options, format: format, values: values}
}

func (e *Error) Error() string { return e.Named(func(o string) string { return o }) }

// Unwrap is the errors among the values (errors.Is and errors.As look into them).
func (e *Error) Unwrap() []error {
	var errs []error
	for _, v := range e.values {
		if err, ok := v.(error); ok {
			errs = append(errs, err)
		}
	}
	return errs
}

// Named is the message with each option named by name(option).
func (e *Error) Named(name func(option string) string) string {
	args := make([]any, 0, len(e.options)+len(e.values))
	for _, o := range e.options {
		args = append(args, name(o))
	}
	return fmt.Sprintf(e.format, append(args, e.values...)...)
}
