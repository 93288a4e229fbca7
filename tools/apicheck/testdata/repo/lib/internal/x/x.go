// Package x is internal.
package x

// Hidden is not in the record.
func Hidden() {}
