// Package debug serves a debug page of every named actorq queue of the
// process, as net/http/pprof serves profiles: mount [Handler] under a
// prefix that ends in a slash,
//
//	mux.Handle("/debug/queues/", http.StripPrefix("/debug/queues", debug.Handler()))
//
// and open /debug/queues/ in a browser. The page links with relative URLs,
// so any prefix works, as long as the index is reached with its trailing
// slash (a ServeMux redirects /debug/queues to /debug/queues/).
//
//   - The index, /, lists each queue of [actor.NamedQueues] (those made
//     with a Config.Name and not yet shut down, in the order they were
//     made): its name, its ID, how many items are ready (the depth),
//     processing and delayed, the age of the first ready item of its
//     [actor.Snapshot] and the age of the item processing the longest.
//     The first ready item is the next to be handed out, and the oldest,
//     in a FIFO queue; with priorities, the oldest of the highest
//     priority; with fairness, the oldest of the first key by name at
//     that priority (hand-out goes round-robin across keys, so it need
//     not be the next). A queue with a custom Storage lists no ready
//     items, so it shows no age for them.
//   - The queue page, /queue?id=ID, shows the queue's [actor.Snapshot]:
//     the counts, the ready items by priority, and up to n items of each
//     state (n=100 unless the query says n=N, at most 10000): the ready
//     items as the snapshot lists them (see above: in hand-out order in
//     a FIFO queue), the processing ones longest first, the
//     delayed ones earliest deadline first, each with its state,
//     priority, fairness keys, age, requeues and deadline. With fairness
//     it also shows the keys held back (waiting for a token or a pause's
//     end, or at their caps) and the keys whose adaptive caps learnt
//     something (a cap not at its start, or a throttle): each one's key
//     path, cap, items processing, min, max and start, throttles, and
//     when the cap last fell.
//   - ?format=json gives the same as JSON: the index a list of [Summary],
//     the queue page the [actor.Snapshot] (items as encoding/json encodes
//     them; ages and durations in nanoseconds). format=html is the
//     default.
//   - The pages are plain HTML, without JavaScript, and read on a phone:
//     wide tables scroll sideways.
//
// Bad input: a method other than GET or HEAD is answered 405; a malformed
// query, an id or n that is not a non-negative integer, an n over 10000, a
// missing id or an unknown format 400, with a plain-text message that says
// what is wrong; an id of no queue listed (one never made, or shut down
// since), and a path other than / and /queue, 404. An item that
// encoding/json cannot encode (a struct with a channel, say) makes its
// JSON page fail with 500; its HTML page shows it with %v.
//
// Every request asks each queue it shows for a snapshot, which its owner
// goroutine answers between two rounds of requests, in a time that grows
// with the items shown and the items processing, not with the items
// queued; a queue that shuts down meanwhile answers from what is left. The
// handler is safe for concurrent use. Like net/http/pprof's, the pages
// show what the program holds (the queues' items and fairness keys):
// serve them on a loopback or internal address only.
//
// The page is a module of its own, rather than part of the exporter, so
// that a program can serve it without importing Prometheus: it needs
// only the standard library and package actor.
//
// Experimental: the pages and their JSON follow what operators ask to
// see, and may change in any minor release until v1 (the README's
// "Stability"), each change named in CHANGELOG.md.
package debug
