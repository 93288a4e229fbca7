package adapter

import (
	"context"

	"k8s.io/client-go/util/workqueue"
)

// DoWorkPieceFunc is client-go's workqueue.DoWorkPieceFunc: the work on
// piece number piece.
type DoWorkPieceFunc = workqueue.DoWorkPieceFunc

// Options is client-go's workqueue.Options, an option of ParallelizeUntil.
type Options = workqueue.Options

// WithChunkSize hands the pieces to the workers c at a time instead of one
// by one, which pays off when pieces are many and small. It returns
// client-go's option, typed as [Options] (client-go's signature names an
// unexported type; every use compiles the same).
func WithChunkSize(c int) Options { return workqueue.WithChunkSize(c) }

// ParallelizeUntil runs doWorkPiece for the pieces 0 to pieces-1 on
// workers goroutines and returns when all are done or ctx is done, with no
// goroutine left. It is client-go's ParallelizeUntil, which has no known
// defect; it has nothing to do with queues.
func ParallelizeUntil(ctx context.Context, workers, pieces int, doWorkPiece DoWorkPieceFunc, opts ...Options) {
	workqueue.ParallelizeUntil(ctx, workers, pieces, doWorkPiece, opts...)
}
