package order

import "math"

// The limits of fairness keys: a key's own (SetLimit), or those of every
// key of its level (SetLevels), which a key without its own has. A key's
// rate and pause work as rate.go says; caps and weights as flow.go says.

// Limit is the flow control of one key.
type Limit struct {
	Cap    int     // the most items out at once; 0 for no cap
	Weight int     // turns per round, or share of work time; 0 means 1
	Rate   float64 // the most items started a second (rate.go); 0 or infinite for no rate
	Burst  int     // with a rate: the most items started at one instant, at least 1
	Adapt  *Adapt  // an adaptive cap (adaptive.go), in place of Cap; nil for none
}

// SetLimit sets the limits of the key path keys, in place of those of
// its level (SetLevels).
func (o *Prio[T]) SetLimit(keys []string, l Limit) {
	f := o.flows
	for _, k := range keys {
		f = o.child(f, k)
	}
	o.changes++ // a popped item may be over a lower cap
	was := o.blocked(f)
	o.limit(f, l)
	f.limited = !l.same(o.levelLimit(len(keys)))
	if f.r != nil {
		o.rewake(f)
	}
	if o.blocked(f) != was {
		o.settleFlow(f)
	}
	if f.ad != nil {
		o.followCap(f)
	}
	o.retagFlow(f)
	o.tidy(f)
}

// SetLevels gives every key of level i+1 the limits levels[i], unless
// SetLimit gives it its own. It must be called before the first Push.
func (o *Prio[T]) SetLevels(levels []Limit) {
	o.levels = levels
	for _, l := range levels {
		o.rated = o.rated || interval(l.Rate) > 0
		if a := l.Adapt; a != nil {
			o.adaptCfg = true
			// A key of the level has a state from its start unless it
			// is dormant until its first throttle (setAdapt).
			o.adaptive = o.adaptive || a.Start != a.Max
		}
	}
}

// same reports whether l and m limit a key alike: a weight of 0 is 1, a
// rate is its interval, and a burst counts only with a rate.
func (l Limit) same(m Limit) bool {
	tau := interval(l.Rate)
	return l.Cap == m.Cap && max(l.Weight, 1) == max(m.Weight, 1) && tau == interval(m.Rate) &&
		(tau == 0 || max(l.Burst, 1) == max(m.Burst, 1)) &&
		(l.Adapt == nil) == (m.Adapt == nil) && (l.Adapt == nil || *l.Adapt == *m.Adapt)
}

// levelLimit returns the limits of the keys of level depth.
func (o *Prio[T]) levelLimit(depth int) Limit {
	if depth <= len(o.levels) {
		return o.levels[depth-1]
	}
	return Limit{}
}

// limit gives f the limits l.
func (o *Prio[T]) limit(f *flow[T], l Limit) {
	f.cap = int32(min(l.Cap, math.MaxInt32))
	f.weight = int32(min(max(l.Weight, 1), math.MaxInt32))
	o.setRate(f, l)
	o.rated = o.rated || f.r != nil
	o.setAdapt(f, l.Adapt) // its cap follows the adaptive one's
}
