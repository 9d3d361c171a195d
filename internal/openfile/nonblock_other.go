//go:build !unix

package openfile

const nonBlock = 0
