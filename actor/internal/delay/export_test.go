package delay

// At returns item's deadline, if it has one.
func (d *Deadlines[T]) At(item T) (int64, bool) {
	dl, ok := d.deadlines[item]
	return dl.At, ok
}
