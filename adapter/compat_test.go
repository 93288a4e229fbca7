package adapter_test

import (
	"testing"

	workqueue "github.com/actorq/actorq/adapter"
	"github.com/actorq/actorq/adapter/compattest"
	clientgo "k8s.io/client-go/util/workqueue"
)

var impls = []compattest.Impl{
	{
		Name: "client-go",
		NewQueue: func(l compattest.Limiter, cfg clientgo.TypedRateLimitingQueueConfig[string]) clientgo.TypedRateLimitingInterface[string] {
			return clientgo.NewTypedRateLimitingQueueWithConfig(l, cfg)
		},
		NewPlain: func(cfg clientgo.TypedQueueConfig[string]) clientgo.TypedInterface[string] {
			return clientgo.NewTypedWithConfig(cfg)
		},
		Exponential: clientgo.NewTypedItemExponentialFailureRateLimiter[string],
		FastSlow:    clientgo.NewTypedItemFastSlowRateLimiter[string],
		MaxOf:       clientgo.NewTypedMaxOfRateLimiter[string],
		WithMaxWait: clientgo.NewTypedWithMaxWaitRateLimiter[string],
		ItemBased:   clientgo.DefaultTypedItemBasedRateLimiter[string],
		Controller:  clientgo.DefaultTypedControllerRateLimiter[string],
	},
	{
		Name:  "adapter",
		Fixed: true,
		NewQueue: func(l compattest.Limiter, cfg workqueue.TypedRateLimitingQueueConfig[string]) workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(l, cfg)
		},
		NewPlain:    newPlain,
		Exponential: workqueue.NewTypedItemExponentialFailureRateLimiter[string],
		FastSlow:    workqueue.NewTypedItemFastSlowRateLimiter[string],
		MaxOf:       workqueue.NewTypedMaxOfRateLimiter[string],
		WithMaxWait: workqueue.NewTypedWithMaxWaitRateLimiter[string],
		ItemBased:   workqueue.DefaultTypedItemBasedRateLimiter[string],
		Controller:  workqueue.DefaultTypedControllerRateLimiter[string],
	},
	{
		// The adapter's wrapper over a user-supplied delaying queue, here
		// the adapter's own.
		Name:  "adapter-over-delaying-queue",
		Fixed: true,
		NewQueue: func(l compattest.Limiter, cfg workqueue.TypedRateLimitingQueueConfig[string]) workqueue.TypedRateLimitingInterface[string] {
			cfg.DelayingQueue = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
				Name: cfg.Name, MetricsProvider: cfg.MetricsProvider, Clock: cfg.Clock,
			})
			return workqueue.NewTypedRateLimitingQueueWithConfig(l, cfg)
		},
		NewPlain:    newPlain,
		Exponential: workqueue.NewTypedItemExponentialFailureRateLimiter[string],
		FastSlow:    workqueue.NewTypedItemFastSlowRateLimiter[string],
		MaxOf:       workqueue.NewTypedMaxOfRateLimiter[string],
		WithMaxWait: workqueue.NewTypedWithMaxWaitRateLimiter[string],
		ItemBased:   workqueue.DefaultTypedItemBasedRateLimiter[string],
		Controller:  workqueue.DefaultTypedControllerRateLimiter[string],
	},
}

// newPlain is the adapter's plain queue constructor.
func newPlain(cfg workqueue.TypedQueueConfig[string]) workqueue.TypedInterface[string] {
	return workqueue.NewTypedWithConfig(cfg)
}

func TestCompat(t *testing.T) {
	for _, impl := range impls {
		t.Run(impl.Name, func(t *testing.T) { compattest.Run(t, impl) })
	}
}

func TestConcurrency(t *testing.T) {
	for _, impl := range impls {
		t.Run(impl.Name, func(t *testing.T) { compattest.Concurrency(t, impl) })
	}
}
