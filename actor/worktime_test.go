package actor_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// stepClock is a Clock that moves only when Step is called, as
// k8s.io/utils/clock's FakeClock: a consumer that steps it between Get
// and Done gives each item an exact work time. Its timers fire when a
// Step passes their deadline.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*stepTimer
}

type stepTimer struct {
	c     *stepClock
	ch    chan time.Time
	at    time.Time
	armed bool
}

func newStepClock() *stepClock { return &stepClock{now: time.Unix(1_000_000, 0)} }

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) NewTimer(d time.Duration) actor.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &stepTimer{c: c, ch: make(chan time.Time, 1), at: c.now.Add(d), armed: true}
	c.timers = append(c.timers, t)
	return t
}

// Step moves the clock on by d and fires the timers it passes.
func (c *stepClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		if t.armed && !t.at.After(c.now) {
			t.armed = false
			select {
			case t.ch <- c.now:
			default:
			}
		}
	}
}

func (t *stepTimer) C() <-chan time.Time { return t.ch }

func (t *stepTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

func (t *stepTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.at, t.armed = t.c.now.Add(d), true
	return was
}

// takers are the ways a consumer takes one item, each with Done after.
var takers = []struct {
	name string
	take func(q *actor.Queue[string]) string
}{
	{"Get", func(q *actor.Queue[string]) string { item, _ := q.Get(); return item }},
	{"GetWithPriority", func(q *actor.Queue[string]) string { item, _, _ := q.GetWithPriority(); return item }},
	{"GetContext", func(q *actor.Queue[string]) string { item, _ := q.GetContext(context.Background()); return item }},
	{"GetBatch", func(q *actor.Queue[string]) string { items, _ := q.GetBatch(make([]string, 0, 1)); return items[0] }},
	{"Items", func(q *actor.Queue[string]) string { return <-q.Items() }},
}

// TestWorkTimeChargedAtDone: with a Clock that the one consumer steps
// between taking an item and its Done, fairness by work time shares the
// clock's time by weight, whatever the items cost and however the
// consumer takes them: tenants whose items cost 8, 1 and 2 ms, weighted
// 1:1:2, get 1/4, 1/4 and 1/2 of it, within the few items the lane
// offers ahead. A Done is charged at the instant of its call, a hand-out
// at the instant of the claim or the receive, never when the owner
// goroutine gets to them.
func TestWorkTimeChargedAtDone(t *testing.T) {
	cost := map[string]time.Duration{"a": 8 * time.Millisecond, "b": time.Millisecond, "c": 2 * time.Millisecond}
	want := map[string]float64{"a": 0.25, "b": 0.25, "c": 0.5}
	for _, taker := range takers {
		t.Run(taker.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clock := newStepClock()
				q := actor.New(actor.Config[string]{
					Clock: clock, Fairness: tenantOf, FairByWorkTime: true,
					KeyLimits: []actor.KeyLimit{{Keys: []string{"c"}, Weight: 2}},
				})
				defer q.ShutDown()
				for i := range 2000 {
					for _, tenant := range []string{"a", "b", "c"} {
						q.Add(fmt.Sprint(tenant, "-", i))
					}
				}
				spent := map[string]time.Duration{}
				var total time.Duration
				for total < 4*time.Second {
					item := taker.take(q)
					synctest.Wait() // the owner dates a receive from Items as it sees it
					d := cost[tenantOf(item)[0]]
					clock.Step(d)
					q.Done(item)
					synctest.Wait() // the owner is as far ahead as it can get
					spent[tenantOf(item)[0]] += d
					total += d
				}
				// The lane offers a few items ahead of the consumer, picked
				// before the Dones of the items in hand were charged: a few
				// of the costliest items either way.
				const tolerance = 0.02
				for tenant, w := range want {
					if got := float64(spent[tenant]) / float64(total); math.Abs(got-w) > tolerance {
						t.Errorf("tenant %s got %.3f of the work time; want %.2f±%.2f (spent %v)", tenant, got, w, tolerance, spent)
					}
				}
			})
		})
	}
}
