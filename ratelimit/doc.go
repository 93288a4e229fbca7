// Package ratelimit holds the rate limiters a queue consults on
// AddRateLimited, and the backoff tools controller and client authors reach
// for when a dependency is unhealthy.
//
// Guarantees:
//
//   - Safe: every [RateLimiter] in this package, and [Manager], is safe for
//     concurrent use by multiple goroutines. [Backoff] is a plain value owned
//     by one goroutine.
//   - Non-blocking: When, Forget and NumRequeues never sleep or wait for
//     anything but a short internal lock; they compute a delay and return it.
//     Only [BackoffUntil] blocks, and it runs in the caller's goroutine.
//   - No goroutines: nothing in this package starts a goroutine or leaves a
//     timer behind, and nothing runs at package level.
//   - Never negative, never overflowing: every delay returned is between 0
//     and [math.MaxInt64] nanoseconds, whatever the configuration. Growth
//     saturates at the configured maximum (or at MaxInt64) instead of
//     wrapping around, where client-go's arithmetic returns a negative delay
//     from the 64th failure on when max is MaxInt64.
//   - Exact: without jitter, every limiter returns client-go's values to the
//     nanosecond; jitter only ever adds to a delay, never subtracts.
//
// # Limiters
//
// [Bucket] is a token bucket shared by all items; [Exponential] and
// [FastSlow] keep a failure count per item; [MaxOf] and [WithMaxWait] combine
// other limiters. [DefaultController] is client-go's default controller
// limiter, and [Default] the one this package recommends for new code.
//
// # Backoff
//
// [Backoff] is apimachinery's wait.Backoff: a sequence of growing delays with
// optional jitter and cap. [Jitter] spreads one delay. [Manager] hands out the
// delays of a Backoff to a retry loop and resets to the start after a quiet
// period. [BackoffUntil] runs a function until a context ends, waiting for
// the manager's delay between runs.
//
// # Bad input
//
// Constructors never fail and never panic: each takes its parameters as given
// where they make sense and clamps them, as documented on the field or
// parameter, where they don't, so client-go's constructors (which have no
// error path) map onto them one to one. Callers who prefer an error call the
// Validate method of the config first: it reports every value the
// constructor would clamp. In short:
//
//   - negative delays (Base, Max, Fast, Slow, max wait, Duration) become 0;
//   - a maximum below the base wins (every delay is the maximum), as in
//     client-go;
//   - a growth factor below 1 (or NaN) means no growth;
//   - a negative or NaN jitter factor means no jitter;
//   - a negative count (Steps, MaxFast) means 0;
//   - a nil child limiter is dropped from [MaxOf], and [WithMaxWait] of a nil
//     limiter delays nothing; a [Bucket] with a nil Limiter does not limit.
//
// Only misuse that cannot be mapped to sensible behaviour panics, in the
// caller's goroutine and with a "ratelimit: " prefix: [BackoffUntil] with a
// nil f or next.
//
// # Memory
//
// The per-item limiters ([Exponential], [FastSlow], and the limiters built
// from them) remember every item that failed until Forget is called for it.
// A long-running process that never calls Forget (client-go's queues leave it
// to the caller: a controller must call Forget after a successful sync) grows
// without bound; that is a memory leak in client-go (kubernetes #138743) and,
// by default, here alike. The state is one int per item in a map, and the
// map is rebuilt smaller once most of its items have been forgotten, so a
// burst of failing keys does not pin its peak memory for the life of the
// process.
//
// A CoolDown ([ExponentialConfig.CoolDown], [FastSlowConfig.CoolDown]) bounds
// it: an item that has not failed for CoolDown counts as forgotten, exactly,
// the moment CoolDown has passed (Argo CD's controllers reset their backoff
// the same way). Its memory is released lazily and without goroutines or
// timers: each call of When, Forget or NumRequeues forgets up to 64 cooled
// items, oldest first, so one call never does more than a bounded amount of
// work, and a steady stream of failures of never-forgotten keys holds about
// the keys of the last CoolDown, not every key ever seen. With 1M distinct
// keys failing 1ms apart and a 1s CoolDown, the limiter holds 1,000 keys at
// the end instead of 1M (BenchmarkFailuresMemory). A cooled item costs a
// second map entry and a log entry per failure within the last CoolDown.
// The default CoolDown is 0, client-go's behaviour; [Default] does not set
// one either, because a cool-down changes which delays a key gets.
//
// # Stability
//
// Every exported name of this package is stable from v0.1.0 on: a release
// may add to it, never change or remove it, v0.x included (the README's
// "Stability"). Without jitter, the delays are client-go's, and stay so.
package ratelimit
