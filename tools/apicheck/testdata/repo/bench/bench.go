// Package bench is unpublished.
package bench

// Bench is not in the record.
func Bench() {}
