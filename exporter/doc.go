// Package exporter exports the metrics of actorq queues to Prometheus,
// under the names, help texts, labels and buckets client-go's workqueue
// metrics have, so existing dashboards and alerts keep working.
//
//   - [New] registers client-go's standard definitions (those of
//     k8s.io/component-base/metrics/prometheus/workqueue, label "name") in
//     any [prometheus.Registerer].
//   - [NewControllerRuntime] uses controller-runtime's definitions (labels
//     "name" and "controller"), so that in a controller-runtime manager the
//     queues share the collectors controller-runtime registers in its
//     metrics.Registry.
//   - Both add workqueue_delayed_items, the number of items waiting on a
//     delay, which client-go does not report, and for a queue with
//     fairness per-key gauges: workqueue_key_depth,
//     workqueue_key_processing, workqueue_key_held_items, and for keys
//     with an adaptive cap workqueue_key_cap and workqueue_key_throttles.
//   - Registering into a registry that already holds identical collectors
//     reuses them instead of failing.
//
// The returned [Provider] goes into [actor.Config].MetricsProvider, or
// process-wide into [actor.SetProvider]. A queue records metrics only if it
// has a name. The queue updates its metrics from its own owner goroutine;
// the Prometheus collectors are safe for the concurrent scrapes.
//
// # Stability
//
// [New], [NewControllerRuntime] and the series with client-go's and
// controller-runtime's names are stable from v0.1.0 on (the README's
// "Stability"); the per-key series (workqueue_key_depth,
// workqueue_key_processing, workqueue_key_held_items, workqueue_key_cap,
// workqueue_key_throttles) and the methods
// that make them are experimental until v1, as package actor's per-key
// gauges are.
package exporter
