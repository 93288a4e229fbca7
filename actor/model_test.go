package actor_test

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/actorq/actorq/actor"
)

// spec is the contract of a whole queue as one plain sequential model,
// written from the package docs and independently of the queue's code:
// what each call does to each item, and which item a hand-out takes, with
// priorities, delays, fairness keys at any depth, caps, weights, fairness
// by work time, both requeue rules, shutdown and drain. It knows nothing
// of how requests travel: the queue, driven from one goroutine, must give
// exactly its answers whatever fast paths are on (FuzzContract).
//
// Hand-out takes the highest priority with an item that may be handed
// out; within it, at each level of the key tree, the child whose turn it
// is; within a key, the lowest place. A child's turn: by turns, the child
// that entered its parent's turns first (a child of weight w keeps its
// turn for w hand-outs, then goes to the back); by work time, the least
// virtual time (ties: the first to enter), and after each hand-out the
// child goes to the back. A child is in its parent's turns while it may
// take a turn: it has a ready item under it in that priority, its key is
// not at its cap, and (an inner node) one of its children is in its
// turns; it enters at the back the instant it may.
//
// A key with a rate has a bucket (the generic cell rate algorithm: tat,
// the theoretical arrival time of its next item): a hand-out at t spends
// a token of every key on the item's path, tat = max(tat, t) + tau, and a
// key waits, as a key at its cap, while tat - (burst-1)·tau > now or
// it is paused. Keys that may start an item again enter their parents'
// turns in the order of those instants (ties: the order they began to
// wait), before the items due at the same instant; by work time at their
// parents' virtual time. A key is kept while its bucket is not full.
//
// A key with an adaptive cap has it as its cap, and learns it window by
// window (windows of W from the clock's start): a throttle lowers it once
// a window, to the lesser of cap-1 and cap·Backoff, not below Min; at a
// window's end with no throttle, it grows by 1 (not above Max) if the
// key's items processing reached half the cap in the window, and moves 1
// toward Start if none was processing. Window ends come after the keys
// released at the same instant and before the items due then; keys that a
// window's end lets take turns enter them as settle says. A key is kept
// while its cap learnt something it has not yet forgotten.
type spec struct {
	levels  int  // fairness keys per item; 0: no fairness
	byWork  bool // fairness by work time
	atAdd   bool // RequeueAtAdd
	keysOf  func(int) []string
	limiter func(int) time.Duration

	now   time.Duration
	items map[int]*sItem
	seq   uint64 // places, in the order they are given
	dues  uint64 // deadlines, in the order they are set
	turn  int64  // turn numbers, in the order children enter turns

	flows     map[string]*sFlow         // by key path ("" is the root)
	levelLims []sLimit                  // the limits of each level's keys without their own
	waitSeq   uint64                    // the last number given to a key that began to wait
	bands     map[int]map[string]*sNode // priority -> key path -> node
	phase     int                       // 0 running, 1 draining, 2 shut down (owner ended or ShutDown)
	drains    []bool                    // per ShutDownWithDrain call: returned
}

type sState uint8

const (
	sReady sState = iota
	sProc
	sDirty
	sDelayed
	sProcDelayed
)

type sItem struct {
	st    sState
	prio  int
	seq   uint64 // ready: its place; dirty or delayed with RequeueAtAdd: the place it keeps
	kept  bool   // seq is a kept place (RequeueAtAdd)
	due   time.Duration
	dueNo uint64
	path  string
	start time.Duration // processing: the hand-out instant
}

// sFlow is a key: its limits, and with fairness by work time its virtual
// time, its recent work time per item, and (as a parent) the largest tag
// it picked.
type sFlow struct {
	cap, weight int
	limited     bool
	out         int
	vtime, est  int64
	vnow        int64
	depth       int

	tau, burst time.Duration // the bucket: nanoseconds per item (0: no rate), and its size
	tat, pause time.Duration
	wait       bool
	waitSeq    uint64 // while it waits: the order it began to

	ad *sAdapt // an adaptive cap, or nil
}

// sAdapt is a key's adaptive cap: its configuration, the cap, and its
// current window: the most items processing in it, and whether a
// throttle lowered the cap in it.
type sAdapt struct {
	cfg       actor.AdaptiveCap // with Min, Start and Backoff defaulted
	cap, peak int
	cut       bool
	throttles int
}

// fresh reports whether the cap has nothing to remember: it is at Start,
// did not fall in this window, and will not move at its end (too few
// items processing in it to grow, or at Max), as a new key's would not.
func (a *sAdapt) fresh() bool {
	return a.cap == a.cfg.Start && !a.cut && (2*a.peak < a.cap || a.cap == a.cfg.Max)
}

// specLimit is the model's limits of l.
func specLimit(l actor.KeyLimit) sLimit {
	s := sLimit{cap: l.Cap, weight: l.Weight, tau: tauOf(float64(l.Rate)), burst: time.Duration(l.Burst)}
	if a := l.Adaptive; a != (actor.AdaptiveCap{}) {
		a.Min = max(a.Min, 1)
		if a.Start == 0 {
			a.Start = a.Max
		}
		if a.Backoff == 0 {
			a.Backoff = 0.9
		}
		s.ad = &a
	}
	return s
}

// tauOf is the nanoseconds per item of rate, rounded up (0 for none).
func tauOf(rate float64) time.Duration {
	if rate <= 0 || rate >= math.MaxFloat64 {
		return 0
	}
	return time.Duration(math.Ceil(1e9 / rate))
}

// sLimit is a key's limits: a cap, a weight, and a rate (tau: the
// nanoseconds per item, 0 for none) and burst.
type sLimit struct {
	cap, weight int
	tau, burst  time.Duration
	ad          *actor.AdaptiveCap // defaulted; nil for none
}

// same reports whether l and o limit a key alike, as the queue compares
// a key's own limits with its level's: a weight of 0 is 1, and a burst
// counts only with a rate.
func (l sLimit) same(o sLimit) bool {
	return l.cap == o.cap && max(l.weight, 1) == max(o.weight, 1) && l.tau == o.tau &&
		(l.tau == 0 || max(l.burst, 1) == max(o.burst, 1)) &&
		(l.ad == nil) == (o.ad == nil) && (l.ad == nil || *l.ad == *o.ad)
}

// setLimit gives f, with proc items processing under it, the limits l;
// an adaptive cap it had with the same configuration keeps what it
// learnt, and a new one starts its window with proc.
func (f *sFlow) setLimit(l sLimit, proc int) {
	f.cap, f.weight, f.tau, f.burst = l.cap, max(l.weight, 1), l.tau, max(l.burst, 1)
	switch {
	case l.ad == nil:
		f.ad = nil
	case f.ad == nil || f.ad.cfg != *l.ad:
		f.ad = &sAdapt{cfg: *l.ad, cap: l.ad.Start, peak: proc}
	}
	if f.ad != nil {
		f.cap = f.ad.cap
	}
}

// eligibleAt is the instant from which f may start an item.
func (f *sFlow) eligibleAt() time.Duration {
	at := f.pause
	if f.tau > 0 {
		at = max(at, f.tat-(f.burst-1)*f.tau)
	}
	return at
}

// sNode is a key's node in one priority: its place in its parent's turns.
type sNode struct {
	in   bool
	turn int64
	used int
}

func newSpec(levels int, byWork, atAdd bool, keysOf func(int) []string, limiter func(int) time.Duration) *spec {
	return &spec{
		levels: levels, byWork: byWork, atAdd: atAdd, keysOf: keysOf, limiter: limiter,
		items: map[int]*sItem{}, flows: map[string]*sFlow{"": {weight: 1}}, bands: map[int]map[string]*sNode{},
	}
}

func (m *spec) nextSeq() uint64 { m.seq++; return m.seq }

func (m *spec) pathOf(item int) string {
	if m.levels == 0 {
		return ""
	}
	return strings.Join(m.keysOf(item), "/")
}

// prefixes returns the key paths from the first level down to path.
func prefixes(path string) []string {
	if path == "" {
		return nil
	}
	parts := strings.Split(path, "/")
	out := make([]string, len(parts))
	for i := range parts {
		out[i] = strings.Join(parts[:i+1], "/")
	}
	return out
}

func parentOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return ""
}

func (m *spec) depth(path string) int {
	if path == "" {
		return 0
	}
	return strings.Count(path, "/") + 1
}

// flow returns path's key, making it (and the keys above it) as a new
// key starts: at its parent's virtual time, with no credit.
func (m *spec) flow(path string) *sFlow {
	if f := m.flows[path]; f != nil {
		return f
	}
	p := m.flow(parentOf(path))
	f := &sFlow{weight: 1, vtime: p.vnow, depth: m.depth(path)}
	f.setLimit(m.levelLimit(f.depth), 0)
	m.flows[path] = f
	return f
}

func (m *spec) levelLimit(depth int) sLimit {
	if depth <= len(m.levelLims) {
		return m.levelLims[depth-1]
	}
	return sLimit{}
}

// rewake sets whether f waits, after its bucket changed; a key that
// begins to wait takes the next number.
func (m *spec) rewake(f *sFlow) {
	was := f.wait
	f.wait = m.phase == 0 && f.eligibleAt() > m.now
	if f.wait && !was {
		m.waitSeq++
		f.waitSeq = m.waitSeq
	}
}

// take spends a token of every key on path, at a hand-out now.
func (m *spec) take(path string) {
	for _, p := range prefixes(path) {
		if f := m.flows[p]; f.tau > 0 {
			f.tat = max(f.tat, m.now) + f.tau
			m.rewake(f)
		}
	}
}

// tidy forgets the keys that nothing holds: no item the queue knows has
// them on its path, and they and the keys below them have no limits.
func (m *spec) tidy() {
	keep := map[string]bool{"": true}
	hold := func(path string) {
		for _, p := range prefixes(path) {
			keep[p] = true
		}
	}
	for _, it := range m.items {
		hold(it.path)
	}
	for path, f := range m.flows {
		if f.limited || m.phase == 0 && (f.wait || f.tat > m.now || f.ad != nil && !f.ad.fresh()) {
			hold(path)
		}
	}
	for path := range m.flows {
		if !keep[path] {
			delete(m.flows, path)
		}
	}
}

func (m *spec) blocked(path string) bool {
	f := m.flows[path]
	return m.phase == 0 && f != nil && (f.cap > 0 && f.out >= f.cap || f.wait)
}

func (m *spec) tag(path string) int64 {
	f := m.flows[path]
	return f.vtime + int64(f.out)*f.est/int64(f.weight)
}

// hasReady reports whether a ready item of priority prio has path under
// (or at) the key path.
func (m *spec) hasReady(prio int, path string) bool {
	for _, it := range m.items {
		if it.st == sReady && it.prio == prio && (path == "" || it.path == path || strings.HasPrefix(it.path, path+"/")) {
			return true
		}
	}
	return false
}

func (m *spec) anyReady(path string) bool {
	for _, it := range m.items {
		if it.st == sReady && (path == "" || it.path == path || strings.HasPrefix(it.path, path+"/")) {
			return true
		}
	}
	return false
}

// children returns the key paths of the nodes under parent in a band.
func children(nodes map[string]*sNode, parent string) []string {
	var out []string
	for path := range nodes {
		if path != "" && parentOf(path) == parent {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

func (m *spec) eligible(nodes map[string]*sNode, path string) bool {
	if nodes[path] == nil || m.blocked(path) {
		return false
	}
	if m.depth(path) == m.levels {
		return true
	}
	for _, c := range children(nodes, path) {
		if nodes[c].in {
			return true
		}
	}
	return false
}

func (m *spec) enter(n *sNode) { m.turn++; n.in, n.turn, n.used = true, m.turn, 0 }

// settle brings every band's tree in step with the items: a node for
// each key with a ready item under it, and each child in its parent's
// turns while it may take a turn, entering at the back (children before
// their parents, keys in the order of their paths).
func (m *spec) settle() {
	for prio := range m.bands {
		m.settleBand(prio)
	}
	for _, it := range m.items {
		if it.st == sReady && m.bands[it.prio] == nil {
			m.bands[it.prio] = map[string]*sNode{}
			m.settleBand(it.prio)
		}
	}
}

func (m *spec) settleBand(prio int) {
	nodes := m.bands[prio]
	for path := range nodes {
		if !m.hasReady(prio, path) {
			delete(nodes, path)
		}
	}
	for _, it := range m.items {
		if it.st == sReady && it.prio == prio {
			for _, p := range append([]string{""}, prefixes(it.path)...) {
				if nodes[p] == nil {
					nodes[p] = &sNode{}
				}
			}
		}
	}
	if len(nodes) == 0 {
		delete(m.bands, prio)
		return
	}
	var walk func(path string)
	walk = func(path string) {
		for _, c := range children(nodes, path) {
			walk(c)
		}
		if path == "" {
			return
		}
		switch n, ok := nodes[path], m.eligible(nodes, path); {
		case ok && !n.in:
			m.enter(n)
		case !ok && n.in:
			n.in, n.used = false, 0
		}
	}
	walk("")
}

// makeReady puts item, known, in the ready state at prio and place seq.
// A key that had nothing ready and nothing out was idle: it starts at
// its parent's virtual time.
func (m *spec) makeReady(it *sItem, prio int, seq uint64) {
	for _, p := range prefixes(it.path) {
		if f := m.flows[p]; !m.anyReady(p) && f.out == 0 {
			f.vtime = max(f.vtime, m.flows[parentOf(p)].vnow)
		}
	}
	it.st, it.prio, it.seq, it.kept = sReady, prio, seq, false
	m.settle()
}

// know returns a new item's record, holding its keys. It is not ready
// yet (delayed until its caller says), so that makeReady sees its keys
// idle: a key kept only for its limits starts at its parent's virtual
// time like a new one.
func (m *spec) know(item int) *sItem {
	it := &sItem{st: sDelayed, path: m.pathOf(item)}
	for _, p := range prefixes(it.path) {
		m.flow(p)
	}
	m.items[item] = it
	return it
}

// keep sets the place that item keeps while it is not ready (RequeueAtAdd).
func (m *spec) keep(it *sItem, seq uint64) { it.seq, it.kept = seq, m.atAdd }

// add is an Add at priority p.
func (m *spec) add(item, p int) {
	if m.phase != 0 {
		return
	}
	it := m.items[item]
	if it == nil {
		m.makeReady(m.know(item), p, m.nextSeq())
		return
	}
	switch it.st {
	case sReady:
		if p > it.prio {
			m.makeReady(it, p, m.nextSeq())
		}
	case sProc:
		it.st, it.prio = sDirty, p
		m.keep(it, m.nextSeq())
	case sDirty:
		if p > it.prio {
			it.prio = p
			m.keep(it, m.nextSeq())
		}
	case sDelayed, sProcDelayed:
		raised := p > it.prio
		p = max(p, it.prio)
		seq := it.seq
		if !it.kept || raised {
			seq = m.nextSeq()
		}
		if it.st == sProcDelayed {
			it.st, it.prio = sDirty, p
			m.keep(it, seq)
			return
		}
		m.makeReady(it, p, seq)
	}
}

// addAt is an add that takes effect at deadline at, at priority p.
func (m *spec) addAt(item, p int, at time.Duration) {
	if m.phase != 0 {
		return
	}
	it := m.items[item]
	switch {
	case it == nil || it.st == sProc:
		if it == nil {
			it = m.know(item)
			it.st = sDelayed
		} else {
			it.st = sProcDelayed
		}
		m.dues++
		it.due, it.dueNo, it.prio = at, m.dues, p
		m.keep(it, m.nextSeq())
	case it.st == sDelayed || it.st == sProcDelayed:
		if at < it.due {
			m.dues++
			it.due, it.dueNo = at, m.dues
		}
		if p > it.prio {
			it.prio = p
			m.keep(it, m.nextSeq())
		}
	default:
		m.add(item, p)
	}
}

// addAfter is AddAfter, or one item of an AddWithOpts, at the instant now.
func (m *spec) addAfter(item, p int, d time.Duration) {
	if d <= 0 {
		m.add(item, p)
	} else {
		m.addAt(item, p, m.now+d)
	}
}

// advance moves the clock to now, instant by instant: at each, the keys
// that may start an item again take their turns, then the items due
// become ready.
func (m *spec) advance(now time.Duration) {
	for m.phase == 0 {
		t := now + 1
		if w := m.window(); w > 0 {
			t = (m.now/w + 1) * w // the next window's end
		}
		for _, f := range m.flows {
			if f.wait {
				t = min(t, f.eligibleAt())
			}
			if f.tat > m.now {
				t = min(t, f.tat) // the instant it may be forgotten
			}
		}
		for _, it := range m.items {
			if it.st == sDelayed || it.st == sProcDelayed {
				t = min(t, it.due)
			}
		}
		if t > now {
			break
		}
		m.now = max(m.now, t)
		m.release()
		if w := m.window(); w > 0 && m.now%w == 0 {
			m.windowEnds()
		}
		m.due()
	}
	m.now = now
}

// window returns the length of the adaptive caps' windows, if a key has
// one (the suites give them all one length), or 0.
func (m *spec) window() time.Duration {
	for _, f := range m.flows {
		if f.ad != nil {
			return f.ad.cfg.Window
		}
	}
	for _, l := range m.levelLims {
		if l.ad != nil {
			return l.ad.Window
		}
	}
	return 0
}

// procOf returns the items processing under (or at) the key path.
func (m *spec) procOf(path string) int {
	n := 0
	for _, it := range m.items {
		if (it.st == sProc || it.st == sDirty || it.st == sProcDelayed) && (it.path == path || strings.HasPrefix(it.path, path+"/")) {
			n++
		}
	}
	return n
}

// windowEnds ends the current window of every adaptive cap: it grows
// after a window that reached half of it with no throttle, moves toward
// its start after one with nothing processing, and a new window begins.
func (m *spec) windowEnds() {
	for path, f := range m.flows {
		a := f.ad
		if a == nil {
			continue
		}
		switch {
		case a.cut:
		case a.peak > 0 && 2*a.peak >= a.cap:
			a.cap = min(a.cap+1, a.cfg.Max)
		case a.peak == 0 && a.cap < a.cfg.Start:
			a.cap++
		case a.peak == 0 && a.cap > a.cfg.Start:
			a.cap--
		}
		a.peak, a.cut, f.cap = m.procOf(path), false, a.cap
	}
	m.settle()
	m.tidy()
}

// throttle is a throttle reported for the key path, and with until after
// now a pause of the keys it counted for (or of path, if none has an
// adaptive cap).
func (m *spec) throttle(path string, until time.Duration) {
	var hit []string
	for _, p := range prefixes(path) {
		f := m.flows[p]
		if f == nil {
			hit = nil
			break
		}
		if a := f.ad; a != nil {
			hit = append(hit, p)
		}
	}
	for _, p := range hit {
		f := m.flows[p]
		a := f.ad
		a.throttles++
		if !a.cut {
			a.cut = true
			a.cap = max(min(a.cap-1, int(float64(a.cap)*a.cfg.Backoff)), a.cfg.Min)
			f.cap = a.cap
		}
	}
	m.settle()
	if until <= m.now {
		return
	}
	if len(hit) == 0 {
		hit = []string{path}
	}
	for _, p := range hit {
		m.pauseKey(strings.Split(p, "/"), until)
	}
}

// throttleItem is Throttled of item: a throttle of its key path if it is
// processing.
func (m *spec) throttleItem(item int, until time.Duration) {
	it := m.items[item]
	if m.phase != 0 || it == nil || it.st != sProc && it.st != sDirty && it.st != sProcDelayed {
		return
	}
	m.throttle(it.path, until)
}

// throttleKey is ThrottledKey of the key path keys.
func (m *spec) throttleKey(keys []string, until time.Duration) {
	if m.phase != 0 {
		return
	}
	m.throttle(strings.Join(keys, "/"), until)
}

// release makes the keys whose instant has come take their turns again,
// in the order of their instants and then of their waits, each at the
// back and by work time at its parent's virtual time, and forgets the
// keys that only their buckets kept and that are full.
func (m *spec) release() {
	var paths []string
	for path, f := range m.flows {
		if f.wait && f.eligibleAt() <= m.now {
			paths = append(paths, path)
		}
	}
	slices.SortFunc(paths, func(a, b string) int {
		x, y := m.flows[a], m.flows[b]
		if c := cmpDur(x.eligibleAt(), y.eligibleAt()); c != 0 {
			return c
		}
		return cmpU(x.waitSeq, y.waitSeq)
	})
	for _, path := range paths {
		f := m.flows[path]
		f.wait = false
		if m.byWork {
			f.vtime = max(f.vtime, m.flows[parentOf(path)].vnow)
		}
		m.settle()
	}
	m.tidy()
}

// due makes the items due by now ready.
func (m *spec) due() {
	now := m.now
	var due []int
	for item, it := range m.items {
		if (it.st == sDelayed || it.st == sProcDelayed) && it.due <= now {
			due = append(due, item)
		}
	}
	slices.SortFunc(due, func(a, b int) int {
		x, y := m.items[a], m.items[b]
		switch {
		case x.due != y.due:
			return cmpDur(x.due, y.due)
		case !m.atAdd:
			return cmpU(x.dueNo, y.dueNo)
		case x.prio != y.prio:
			return y.prio - x.prio
		}
		return cmpU(x.seq, y.seq)
	})
	for _, item := range due {
		it := m.items[item]
		if it.st == sProcDelayed {
			it.st = sDirty
			m.keep(it, m.nextSeq())
			continue
		}
		m.makeReady(it, it.prio, m.nextSeq())
	}
}

func cmpDur(a, b time.Duration) int { return int(min(max(a-b, -1), 1)) }

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// next returns the item a hand-out takes now, if any.
func (m *spec) next() (item int, ok bool) {
	prios := slices.Sorted(maps.Keys(m.bands))
	for i := len(prios) - 1; i >= 0; i-- {
		prio := prios[i]
		nodes := m.bands[prio]
		if m.levels > 0 && !m.eligible(nodes, "") {
			continue
		}
		path := ""
		for m.depth(path) < m.levels {
			path = m.pick(nodes, path)
		}
		best := -1
		for k, it := range m.items {
			if it.st == sReady && it.prio == prio && it.path == path && (best < 0 || it.seq < m.items[best].seq) {
				best = k
			}
		}
		return best, true
	}
	return 0, false
}

// pick returns the child of parent whose turn it is.
func (m *spec) pick(nodes map[string]*sNode, parent string) string {
	best := ""
	for _, c := range children(nodes, parent) {
		n := nodes[c]
		if !n.in {
			continue
		}
		if best == "" || m.before(nodes, c, best) {
			best = c
		}
	}
	return best
}

func (m *spec) before(nodes map[string]*sNode, a, b string) bool {
	if m.byWork {
		if ta, tb := m.tag(a), m.tag(b); ta != tb {
			return ta < tb
		}
	}
	return nodes[a].turn < nodes[b].turn
}

// get hands out the next item, if any, and returns it with its priority.
func (m *spec) get() (item, prio int, ok bool) {
	item, ok = m.next()
	if !ok {
		return 0, 0, false
	}
	it := m.items[item]
	nodes := m.bands[it.prio]
	paths := prefixes(it.path)
	if m.byWork {
		for _, p := range paths { // the virtual time of each parent: its largest pick
			f := m.flows[parentOf(p)]
			f.vnow = max(f.vnow, m.tag(p))
		}
	}
	it.st, it.start = sProc, m.now
	for _, p := range paths {
		f := m.flows[p]
		f.out++
		if f.ad != nil {
			f.ad.peak = max(f.ad.peak, m.procOf(p))
		}
	}
	m.take(it.path)
	for i := len(paths) - 1; i >= 0; i-- {
		p := paths[i]
		n := nodes[p]
		n.used++
		switch {
		case !m.hasReady(it.prio, p):
			delete(nodes, p)
		case !m.eligible(nodes, p):
			n.in, n.used = false, 0
		case m.byWork || n.used >= m.flows[p].weight:
			m.enter(n) // its turn is over: to the back
		}
	}
	m.settle()
	return item, it.prio, true
}

// done is a Done of item.
func (m *spec) done(item int) {
	it := m.items[item]
	if it == nil || it.st != sProc && it.st != sDirty && it.st != sProcDelayed {
		return
	}
	if m.levels > 0 {
		paths := prefixes(it.path)
		if m.byWork {
			d := int64(max(m.now-it.start, 0))
			for _, p := range paths {
				f := m.flows[p]
				f.vtime += d / int64(f.weight)
				if f.est == 0 {
					f.est = d
				} else {
					f.est += (d - f.est) / 4
				}
			}
		}
		for _, p := range paths {
			m.flows[p].out--
		}
		m.settle()
	}
	switch it.st {
	case sProc:
		delete(m.items, item)
		m.tidy()
	case sDirty:
		seq := it.seq
		if !it.kept {
			seq = m.nextSeq()
		}
		m.makeReady(it, it.prio, seq)
	case sProcDelayed:
		it.st = sDelayed
	}
	m.settleDrains()
}

// setLimit is SetKeyLimit of the key path keys.
func (m *spec) setLimit(keys []string, l sLimit) {
	path := strings.Join(keys, "/")
	f := m.flow(path)
	f.setLimit(l, m.procOf(path))
	f.limited = !l.same(m.levelLimit(len(keys)))
	m.rewake(f)
	m.tidy()
	m.settle()
}

// pauseKey is PauseKey of the key path keys until the instant until.
func (m *spec) pauseKey(keys []string, until time.Duration) {
	if m.phase != 0 || until <= m.now {
		return
	}
	f := m.flow(strings.Join(keys, "/"))
	if until <= f.pause {
		return
	}
	f.pause = until
	m.rewake(f)
	m.settle()
}

// shutDown begins a shutdown: adds are ignored from now on, delays are
// dropped, caps lifted, and every drain begun before a ShutDown returns.
func (m *spec) shutDown(drain bool) {
	if m.phase == 0 {
		for item, it := range m.items {
			switch it.st {
			case sDelayed:
				delete(m.items, item)
			case sProcDelayed:
				it.st = sProc
			}
		}
		for _, f := range m.flows {
			f.wait = false
		}
	}
	if drain {
		m.phase = max(m.phase, 1)
		m.drains = append(m.drains, false)
	} else {
		m.phase = 2
		for i := range m.drains {
			m.drains[i] = true
		}
	}
	m.tidy()
	m.settle()
	m.settleDrains()
}

// settleDrains returns every drain once nothing is processing.
func (m *spec) settleDrains() {
	if m.phase == 0 || m.processing() > 0 {
		return
	}
	for i := range m.drains {
		m.drains[i] = true
	}
}

func (m *spec) processing() int {
	n := 0
	for _, it := range m.items {
		if it.st == sProc || it.st == sDirty || it.st == sProcDelayed {
			n++
		}
	}
	return n
}

// len is Len: the ready items, and with RequeueAtAdd those added again
// while processing.
func (m *spec) len() int {
	n := 0
	for _, it := range m.items {
		if it.st == sReady || m.atAdd && it.st == sDirty {
			n++
		}
	}
	return n
}

// learnt describes the adaptive caps that learnt something, by path, as
// the queue's snapshot lists them.
func (m *spec) learnt() string {
	var b strings.Builder
	for _, path := range slices.Sorted(maps.Keys(m.flows)) {
		if a := m.flows[path].ad; a != nil && (a.cap != a.cfg.Start || a.throttles > 0) {
			fmt.Fprintf(&b, "%s: cap %d, processing %d, throttles %d; ", path, a.cap, m.procOf(path), a.throttles)
		}
	}
	return b.String()
}

// String describes the model's items, for failure messages.
func (m *spec) String() string {
	names := [...]string{"ready", "proc", "dirty", "delayed", "proc+delayed"}
	var b strings.Builder
	fmt.Fprintf(&b, "at %v, phase %d:", m.now, m.phase)
	for _, k := range slices.Sorted(maps.Keys(m.items)) {
		it := m.items[k]
		fmt.Fprintf(&b, " %d:%s/p%d/s%d/%q", k, names[it.st], it.prio, it.seq, it.path)
	}
	for _, path := range slices.Sorted(maps.Keys(m.flows)) {
		f := m.flows[path]
		fmt.Fprintf(&b, " flow %q out %d cap %d w %d v %d e %d vnow %d", path, f.out, f.cap, f.weight, f.vtime, f.est, f.vnow)
		if f.tau > 0 || f.pause > 0 {
			fmt.Fprintf(&b, " tau %v burst %d tat %v pause %v wait %v #%d", f.tau, f.burst, f.tat, f.pause, f.wait, f.waitSeq)
		}
		b.WriteString(";")
	}
	return b.String()
}
