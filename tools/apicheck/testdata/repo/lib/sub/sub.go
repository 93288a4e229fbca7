// Package sub is experimental as a whole.
//
// Experimental: all of it.
package sub

// F is a function.
func F() {}
