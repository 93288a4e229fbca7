package actor

import (
	"hash/maphash"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorq/actorq/ratelimit"
)

// op is the kind of a request to the owner goroutine.
type op uint8

const (
	opAdd      op = iota // add item now
	opRetry              // add item now, counting a retry (AddAfter with d <= 0)
	opAddAfter           // add item at deadline at, counting a retry
	opLen                // reply with the number of ready items
	opBatch              // hand out a batch of ready items
	opDones              // Done of each of a batch of items
)

// request is a message to the owner goroutine. Only opLen and opBatch
// expect a reply.
type request[T comparable] struct {
	op    op
	item  T
	at    int64 // opAddAfter: deadline in nanoseconds since the epoch
	reply chan<- int
	batch *batch[T]
	dones *[]T // opDones: a copy of the items, returned to core.doneBufs
}

// batch is a GetBatch call waiting for items. The owner appends up to
// cap(items) ready items, marks them processing, and sends on ready; or it
// sends with shutdown set when it ends first.
type batch[T comparable] struct {
	items    []T
	shutdown bool
	ready    chan struct{} // capacity 1
}

const (
	// inboxSize is how many requests may be in flight before senders wait
	// for the owner to take them. It is a hand-over buffer, not storage:
	// the owner moves requests into its own unbounded state in batches.
	//
	// It is small on purpose. When the owner's thread loses its CPU to a
	// busy producer's thread (the OS scheduler put both on one CPU), the
	// producer runs on until the inbox is full and only then blocks,
	// giving the CPU back; every item added meanwhile waits that long.
	// With a producer adding 135k items/s (bench's Latency) that stall
	// was 3.8 ms with 512 slots (the p99 latency), 0.9-1.3 ms with 128 and
	// 0.4 ms with 64, with no measurable change in pipeline throughput.
	inboxSize = 64
	// donesSize is the same for Done, whose callers do not run ahead of
	// the owner the same way: a consumer Dones only what it was handed.
	donesSize = 512
	// batchSize bounds one batch of inbox requests, so that consumers and
	// due timers are served between batches however long the flood.
	batchSize = 64
)

// core is what the owner goroutine and the callers share. The channels and
// the fields set in newCore are read by every caller; s, the timers and
// draining are touched only by the owner goroutine; rest is written by the
// owner before it closes out, and read by callers only after they have seen
// out or done closed.
type core[T comparable] struct {
	inbox chan request[T]
	out   chan T        // unbuffered: an item is processing once received
	dones chan T        // Done's items, on their own so consumers do not queue behind producers
	lane  chan *slot[T] // buffered: ready items for Get to claim; see lane.go
	bell  chan struct{} // capacity 1: a consumer found the lane empty

	itemsUsed atomic.Bool   // Items was called: the lane is off for good
	quit      chan struct{} // closed by ShutDown or when the Queue is dropped
	drain     chan struct{} // closed by ShutDownWithDrain
	done      chan struct{} // closed as the owner goroutine's last act

	quitOnce, drainOnce sync.Once
	shutting            atomic.Bool

	clock      Clock
	epoch      time.Time
	limiter    RateLimiter[T]
	checkItems bool
	seed       maphash.Seed

	rest chan T // queued items left at shutdown, closed

	// filter is where Add finds the owner's filter of Adds that would
	// change nothing (see filter.go); nil with a custom Storage.
	filter *atomic.Pointer[filter[T]]

	// Owned by the owner goroutine.
	s        *state[T]
	m        *metrics[T]
	timer    Timer
	timerC   <-chan time.Time
	armed    bool
	armedAt  int64
	mtimer   Timer
	mtimerC  <-chan time.Time
	mArmed   bool
	draining bool
	laneOn   bool        // ready items go to the lane rather than to out
	wanted   bool        // a Get found the lane empty since the last GetBatch
	waiting  []*batch[T] // GetBatch calls waiting for an item, oldest first

	batches  sync.Pool // of *batch[T], reused by GetBatch callers
	doneBufs sync.Pool // of *[]T, reused by DoneBatch callers
}

func newCore[T comparable](cfg Config[T]) *core[T] {
	clock := cfg.Clock
	if clock == nil {
		clock = realClock{}
	}
	limiter := cfg.RateLimiter
	if limiter == nil {
		limiter = ratelimit.DefaultController[T]()
	}
	m := newMetrics[T](cfg.Name, cfg.MetricsProvider, clock)
	s := newState(cfg.Storage, m)
	return &core[T]{
		inbox:      make(chan request[T], inboxSize),
		out:        make(chan T),
		dones:      make(chan T, donesSize),
		lane:       make(chan *slot[T], laneSize),
		bell:       make(chan struct{}, 1),
		laneOn:     true,
		quit:       make(chan struct{}),
		drain:      make(chan struct{}),
		done:       make(chan struct{}),
		clock:      clock,
		epoch:      clock.Now(),
		limiter:    limiter,
		checkItems: mayHoldUnhashable(reflect.TypeFor[T]()),
		seed:       maphash.MakeSeed(),
		s:          s,
		m:          m,
		filter:     s.publish,
	}
}

// since returns the queue's clock reading in nanoseconds since its epoch.
func (c *core[T]) since() int64 { return int64(c.clock.Now().Sub(c.epoch)) }

// send hands r to the owner goroutine. It reports false, without sending,
// if the owner has ended. The fast path is a plain buffered send; only a
// full inbox makes it wait, and then only until the owner takes a batch.
func (c *core[T]) send(r request[T]) bool {
	select {
	case c.inbox <- r:
		return true
	default:
	}
	select {
	case c.inbox <- r:
		return true
	case <-c.done:
		return false
	}
}

// leftover returns the next item queued at shutdown, or shutdown == true.
// It must be called only after out was seen closed.
func (c *core[T]) leftover() (item T, shutdown bool) {
	item, ok := <-c.rest
	return item, !ok
}

// stop tells the owner goroutine to end, without waiting. ShutDown calls
// it, and so does the runtime's cleanup goroutine for a Queue nobody holds
// any more.
func (c *core[T]) stop() {
	c.shutting.Store(true)
	c.quitOnce.Do(func() { close(c.quit) })
}

// loop is the owner goroutine. It offers the head item to consumers, takes
// requests in batches, wakes for the earliest deadline and for the metrics
// refresh, and ends on quit, or on drain once nothing is processing.
//
// While there is work it does not block: it hands items to consumers that
// are already waiting and takes requests that are already sent, with
// non-blocking channel operations, which cost a fraction of a select. Only
// when neither makes progress does it block in the full select.
func (c *core[T]) loop() {
	defer c.exit()
	drain := c.drain
	for {
		if c.laneOn {
			if c.itemsUsed.Load() {
				c.laneOff()
			}
			select {
			case <-c.bell:
				c.wanted = true
			default:
			}
		}
		if c.serveBatch(batchSize)+c.handOutWaiting() > 0 {
			if c.shutting.Load() || c.mArmed {
				if c.poll(&drain) {
					return
				}
			}
		} else {
			var out chan T
			if !c.laneOn && c.s.stage() {
				out = c.out
			}
			select {
			case r := <-c.inbox:
				c.serveDones()
				c.serve(r)
			case item := <-c.dones:
				c.s.done(item)
			case out <- c.s.head:
				c.s.handOut()
			case <-c.bell:
				c.wanted = true // a Get found the lane empty: refill it
			case <-c.timerC:
				c.armed = false
				c.s.due(c.since())
			case <-c.mtimerC:
				c.mArmed = false
				c.s.settleClaimed()
				c.m.updateUnfinished()
			case <-drain:
				c.startDrain(&drain)
			case <-c.quit:
				c.flush()
				return
			}
		}
		if c.m != nil {
			c.s.settleClaimed()
		}
		if c.draining && c.s.nproc == 0 && c.s.inUse == 0 {
			return
		}
		c.arm()
	}
}

// laneOff stops using the lane and takes back what is offered in it.
func (c *core[T]) laneOff() {
	c.laneOn = false
	c.reclaimLane()
}

// reclaimLane takes back the slots offered in the lane that no consumer has
// received: their items are ready again, ahead of the others.
func (c *core[T]) reclaimLane() {
	var back []T
	for {
		select {
		case sl := <-c.lane:
			back = append(back, c.s.reclaim(sl))
		default:
			c.s.takeBack(back)
			return
		}
	}
}

// fillLane moves ready items into the lane until it is full. It never
// blocks: only the owner sends on the lane, and only while it has room.
func (c *core[T]) fillLane() int {
	n := 0
	for len(c.lane) < cap(c.lane) {
		sl, ok := c.s.toLane()
		if !ok {
			break
		}
		c.lane <- sl
		n++
	}
	return n
}

// poll serves the control channels without blocking, for a loop that is too
// busy to reach its select. It reports whether the loop must end.
func (c *core[T]) poll(drain *chan struct{}) (quit bool) {
	select {
	case <-c.quit:
		c.flush()
		return true
	case <-*drain:
		c.startDrain(drain)
	case <-c.mtimerC:
		c.mArmed = false
		c.s.settleClaimed()
		c.m.updateUnfinished()
	default:
	}
	return false
}

// startDrain begins ShutDownWithDrain: adds and delays are dropped from now
// on, and the loop ends once nothing is processing.
func (c *core[T]) startDrain(drain *chan struct{}) {
	*drain = nil
	c.flush() // what was sent before ShutDownWithDrain counts
	c.draining = true
	c.s.dropDelayed()
	if c.laneOn {
		c.laneOff()
	}
}

// handOutWaiting hands ready items to consumers already waiting to
// receive, and returns how many it handed out.
//
// After the first item it stops as soon as a request is waiting in the
// inbox, so that requests sent before a consumer started to wait (its own
// Add of the head, say) are applied before that consumer is served; the
// first item is handed out regardless, so that a flood of requests cannot
// starve consumers.
func (c *core[T]) handOutWaiting() int {
	n := c.fillBatches()
	if c.laneOn {
		if c.wanted {
			n += c.fillLane()
		}
		return n
	}
	for first := true; (first || len(c.inbox) == 0) && c.s.stage(); first = false {
		select {
		case c.out <- c.s.head:
			c.s.handOut()
			n++
		default:
			return n
		}
	}
	return n
}

// fillBatches gives ready items to waiting GetBatch calls, oldest call
// first, each as many as it asked for, and returns how many it handed out.
func (c *core[T]) fillBatches() int {
	n := 0
	if len(c.waiting) > 0 && c.laneOn {
		// Offered items are older than the rest. The lane stays empty
		// until a Get finds it so: batch consumers have no use for it.
		c.reclaimLane()
		c.wanted = false
	}
	served := 0
	for served < len(c.waiting) && c.s.stage() {
		b := c.waiting[served]
		for len(b.items) < cap(b.items) && c.s.stage() {
			b.items = append(b.items, c.s.handOut())
			n++
		}
		c.waiting[served] = nil
		served++
		b.ready <- struct{}{}
	}
	if served > 0 { // keep the array: no allocation per batch
		c.waiting = c.waiting[:copy(c.waiting, c.waiting[served:])]
	}
	return n
}

// serveBatch serves up to n requests that are already waiting, then makes
// due items ready, so a flood of requests cannot starve timers. It returns
// how many requests it served.
//
// Before each request it applies the Dones already sent, so that a caller's
// Done is applied before its later Add or Len even though they travel on
// different channels. (A Done applied before an earlier Add of the caller's
// gives the same result as in order.)
func (c *core[T]) serveBatch(n int) int {
	served := c.serveDones()
	for range n {
		select {
		case r := <-c.inbox:
			served += c.serveDones()
			c.serve(r)
			served++
		default:
			c.serveDue()
			return served
		}
	}
	c.serveDue()
	return served
}

// flush applies what was sent before ShutDown: its caller's own earlier
// calls count. Both channels are bounded, so this ends.
func (c *core[T]) flush() {
	for range donesSize/batchSize + 1 {
		if c.serveDones() < batchSize {
			break
		}
	}
	c.serveBatch(inboxSize)
}

// serveDones applies the Dones already sent, up to a batch, and returns how
// many it applied.
func (c *core[T]) serveDones() int {
	for i := range batchSize {
		select {
		case item := <-c.dones:
			c.s.done(item)
		default:
			return i
		}
	}
	return batchSize
}

// serveDue makes due items ready, if any item is delayed.
func (c *core[T]) serveDue() {
	if at, ok := c.s.next(); ok {
		if now := c.since(); at <= now {
			c.s.due(now)
		}
	}
}

// serve applies one request.
func (c *core[T]) serve(r request[T]) {
	switch r.op {
	case opAdd:
		c.s.add(r.item)
	case opRetry:
		c.m.retry()
		c.s.add(r.item)
	case opAddAfter:
		c.m.retry()
		if !c.draining {
			c.s.addAt(r.item, r.at)
		}
	case opLen:
		c.serveDue()
		r.reply <- c.s.len() + c.s.laneReady()
	case opBatch:
		c.waiting = append(c.waiting, r.batch)
	case opDones:
		items := *r.dones
		for _, item := range items {
			c.s.done(item)
		}
		clear(items) // let the collector have what items point to
		*r.dones = items[:0]
		c.doneBufs.Put(r.dones)
	}
}

// arm points the delay timer at the earliest deadline, and the metrics
// timer at the next refresh if one is due. An idle queue has no timer
// running: nothing wakes it.
func (c *core[T]) arm() {
	for {
		at, ok := c.s.next()
		if !ok {
			if c.armed {
				c.timer.Stop()
				c.armed = false
			}
			break
		}
		if c.armed && c.armedAt <= at {
			break
		}
		now := c.since()
		if at <= now {
			c.s.due(now)
			continue
		}
		c.startTimer(&c.timer, &c.timerC, time.Duration(at-now))
		c.armed, c.armedAt = true, at
		break
	}
	if !c.mArmed && c.m.wantsTick() {
		c.startTimer(&c.mtimer, &c.mtimerC, updatePeriod)
		c.mArmed = true
	}
}

// startTimer arms *t to fire in d, making it (and *ch, its channel) on
// first use. Re-arming stops the timer and then takes a value it may have
// sent and nobody received: a Clock whose timers have buffered channels
// (such as k8s.io/utils/clock's FakeClock, whose Step sends while holding
// the clock's lock) would otherwise block on the next firing.
func (c *core[T]) startTimer(t *Timer, ch *<-chan time.Time, d time.Duration) {
	if *t == nil {
		*t = c.clock.NewTimer(d)
		*ch = (*t).C()
		return
	}
	(*t).Stop() // no send can happen after this
	select {
	case <-*ch:
	default:
	}
	(*t).Reset(d)
}

// exit stops the timers, leaves the queued items to Get, and closes out
// and done, in that order.
func (c *core[T]) exit() {
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.mtimer != nil {
		c.mtimer.Stop()
	}
	c.s.dropDelayed()
	c.reclaimLane()
	left := c.s.leftovers()
	rest := make(chan T, len(left))
	for _, item := range left {
		rest <- item
	}
	close(rest)
	c.rest = rest
	close(c.lane)
	c.m.shutdown(len(left) + c.s.dirtyDropped())
	for _, b := range c.waiting {
		b.shutdown = true
		b.ready <- struct{}{}
	}
	close(c.out)
	close(c.done)
}
