package actor

// lane: to be written.
type lane[T comparable] struct{}

func (l *lane[T]) takeBack(o *owner[T])             {}
func (l *lane[T]) fill(o *owner[T])                 {}
func (l *lane[T]) see(o *owner[T])                  {}
func (l *lane[T]) settle(o *owner[T], r request[T]) {}
func (l *lane[T]) off(o *owner[T])                  {}
func (l *lane[T]) turnOff()                         {}
func (l *lane[T]) added(prio int)                   {}

// get is Get's way of taking an item: from the lane, or, with w non-nil,
// from the owner.
func (l *lane[T]) get(c *shared[T], cancel <-chan struct{}) (w *waiter[T], item T, prio int, got, canceled bool) {
	return c.ask(nil, cancel), item, 0, false, false
}
