package actor

// filter: to be written.
type filter[T comparable] struct{}

func (f *filter[T]) skip(item T) bool { return false }

func (o *owner[T]) added(item T)      {}
func (o *owner[T]) filterSync(item T) {}
func (o *owner[T]) filterOff(item T)  {}
