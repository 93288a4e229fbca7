package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// maxFloat is math.MaxInt64 as a float64: exactly 2^63, the smallest float64
// that does not convert to a time.Duration.
const maxFloat = float64(math.MaxInt64)

// Backoff is a sequence of delays that grow by a factor, up to a cap, with
// optional jitter: apimachinery's wait.Backoff. Each [Backoff.Step] returns
// the next delay and advances the sequence.
//
// Without jitter, Backoff{Duration: time.Second, Factor: 2, Steps: 3} steps
// 1s, 2s, 4s and then 8s forever; with Cap: 3 * time.Second it steps 1s, 2s,
// 3s and then 3s forever.
//
// A Backoff is a plain value: copy it to restart the sequence. It is not
// safe for concurrent use; [Manager] wraps one for sharing. The zero value
// steps 0 forever.
type Backoff struct {
	// Duration is the next un-jittered delay. Step updates it. A negative
	// Duration is taken as 0.
	Duration time.Duration

	// Factor multiplies Duration after each step while Steps remain. A
	// Factor below 1, including 0 and NaN, means no growth (apimachinery
	// treats 0 so; a Factor between 0 and 1 would shrink there).
	Factor float64

	// Jitter is the largest extra, as a fraction of the delay, that Step
	// adds to each delay it returns. The extra is uniform in
	// [0, Jitter*delay) and is never stored in Duration. 0, NaN or a
	// negative Jitter means no jitter.
	Jitter float64

	// Steps is the number of steps left in which Duration grows. Once it
	// reaches 0, Step returns the last Duration (jittered) forever. A
	// negative Steps is taken as 0.
	Steps int

	// Cap, if positive, bounds Duration: once Duration would exceed Cap it
	// becomes Cap and Steps becomes 0, so the sequence stops growing. A
	// Duration already above Cap is lowered to it on the first step (where
	// apimachinery returns it once). 0 or a negative Cap means no cap;
	// growth then saturates at math.MaxInt64 instead of overflowing.
	Cap time.Duration
}

// Validate reports, as an error, each value of b that [Backoff.Step] would
// clamp. A Factor of exactly 0 (no growth, as in apimachinery) is valid.
func (b Backoff) Validate() error {
	var errs []error
	if b.Duration < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: Backoff.Duration = %v; must be >= 0", b.Duration))
	}
	if math.IsNaN(b.Factor) || math.IsInf(b.Factor, 0) || (b.Factor != 0 && b.Factor < 1) {
		errs = append(errs, fmt.Errorf("ratelimit: Backoff.Factor = %v; must be 0 or finite and >= 1", b.Factor))
	}
	if err := validateJitter("Backoff.Jitter", b.Jitter); err != nil {
		errs = append(errs, err)
	}
	if b.Steps < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: Backoff.Steps = %d; must be >= 0", b.Steps))
	}
	if b.Cap < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: Backoff.Cap = %v; must be >= 0", b.Cap))
	}
	if b.Cap > 0 && b.Duration > b.Cap {
		errs = append(errs, fmt.Errorf("ratelimit: Backoff.Duration = %v is above Cap = %v", b.Duration, b.Cap))
	}
	return errors.Join(errs...)
}

// Step returns the next delay of the sequence and advances it: it returns
// Duration plus jitter, then, if Steps remain, decrements Steps and
// multiplies Duration by Factor, capping it at Cap (which ends the growth).
// When no Steps remain it returns Duration plus jitter and changes nothing.
// The result is never negative. Step does not block.
func (b *Backoff) Step() time.Duration {
	if b.Duration < 0 {
		b.Duration = 0
	}
	if b.Cap > 0 && b.Duration > b.Cap {
		b.Duration = b.Cap
		b.Steps = 0
	}
	d := b.Duration
	if b.Steps > 0 {
		b.Steps--
		if b.Factor > 1 && d > 0 {
			next := grow(d, b.Factor)
			if b.Cap > 0 && next > b.Cap {
				next = b.Cap
				b.Steps = 0
			}
			b.Duration = next
		}
	}
	if b.Jitter > 0 {
		d = jitter(d, b.Jitter, rand.Float64())
	}
	return d
}

// grow returns d * f for positive d and f > 1, truncated toward zero as
// apimachinery does, saturating at math.MaxInt64.
func grow(d time.Duration, f float64) time.Duration {
	x := float64(d) * f
	if !(x < maxFloat) {
		return math.MaxInt64
	}
	return time.Duration(x)
}

// Jitter returns d plus a uniform random extra in [0, maxFactor*d): a delay
// between d and (1+maxFactor)*d. A non-positive (or NaN) maxFactor means 1.0,
// as in apimachinery: up to twice d. A non-positive d returns 0. The result
// saturates at math.MaxInt64 instead of overflowing.
//
// Jitter uses math/rand/v2's global source; it is safe for concurrent use and
// does not block.
func Jitter(d time.Duration, maxFactor float64) time.Duration {
	if !(maxFactor > 0) {
		maxFactor = 1
	}
	return jitter(d, maxFactor, rand.Float64())
}

// jitter returns d + u*f*d for d, saturating at math.MaxInt64; u is clamped
// to [0, 1] and f must be positive. A non-positive d returns 0.
func jitter(d time.Duration, f, u float64) time.Duration {
	if d <= 0 {
		return 0
	}
	if !(u > 0) { // also NaN
		return d
	}
	u = min(u, 1)
	extra := u * f * float64(d)
	if !(extra < maxFloat) {
		return math.MaxInt64
	}
	e := time.Duration(extra) // exact: 0 <= extra < 2^63
	if e > math.MaxInt64-d {
		return math.MaxInt64
	}
	return d + e
}
