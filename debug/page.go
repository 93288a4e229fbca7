package debug

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/actorq/actorq/actor"
)

// A page is what one request shows: as JSON, its data; as HTML, its
// template executed on it.
type page interface {
	data() any
	template() string
}

// indexPage is the index: a summary of each named queue.
type indexPage struct {
	Summaries []Summary
}

func (p *indexPage) data() any        { return p.Summaries }
func (p *indexPage) template() string { return "index" }

// queuePage is the page of one queue: its snapshot with up to N items of
// each state.
type queuePage struct {
	ID       uint64
	N        int
	Snapshot actor.Snapshot[any]
}

func (p *queuePage) data() any        { return p.Snapshot }
func (p *queuePage) template() string { return "queue" }

// age formats d to three or four significant digits: 1m23s, 2.35s,
// 97.8ms, 350µs.
func age(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// optAge formats *d, or a dash if d is nil.
func optAge(d *time.Duration) string {
	if d == nil {
		return "–"
	}
	return age(*d)
}

// due formats deadline as a delay from taken, "" if it is zero.
func due(deadline, taken time.Time) string {
	switch d := deadline.Sub(taken); {
	case deadline.IsZero():
		return ""
	case d <= 0:
		return "due"
	default:
		return "in " + age(d)
	}
}

// ago formats t as a time before taken, "" if it is zero.
func ago(t, taken time.Time) string {
	switch d := taken.Sub(t); {
	case t.IsZero():
		return ""
	case d <= 0:
		return "now"
	default:
		return age(d) + " ago"
	}
}

// itemRows are the rows of one item table: the items, and the instant of
// their snapshot, from which deadlines are shown as delays.
type itemRows struct {
	Items []actor.ItemInfo[any]
	Taken time.Time
}

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"age":    age,
	"optAge": optAge,
	"due":    due,
	"ago":    ago,
	"item":   func(v any) string { return fmt.Sprintf("%v", v) },
	"keys":   func(k []string) string { return strings.Join(k, " / ") },
	"stamp":  func(t time.Time) string { return t.Format("2006-01-02 15:04:05.000 MST") },
	"exact":  func(t time.Time) string { return t.Format(time.RFC3339Nano) },
	"fair":   func(items []actor.ItemInfo[any]) bool { return len(items) > 0 && len(items[0].Keys) > 0 },
	"rows":   func(items []actor.ItemInfo[any], taken time.Time) itemRows { return itemRows{items, taken} },
}).Parse(`
{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}}</title>
<style>
body { font: 15px/1.35 system-ui, sans-serif; margin: 1em; color: #222; }
h1 { font-size: 1.4em; margin: .3em 0 .5em; }
h2 { font-size: 1.1em; margin: 1em 0 .3em; }
small, .note { color: #666; font-weight: normal; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; }
th, td { padding: .2em .6em; border-bottom: 1px solid #ddd; text-align: left; white-space: nowrap; vertical-align: top; }
thead th { background: #f3f3f3; }
.n { text-align: right; font-variant-numeric: tabular-nums; }
td.item { font-family: ui-monospace, monospace; white-space: normal; overflow-wrap: anywhere; min-width: 10em; max-width: 40em; }
form { margin-top: 1em; }
input { width: 6em; }
</style>
</head>
<body>
{{end}}

{{define "index"}}{{template "head" "actorq queues"}}
<h1>actorq queues</h1>
<p class="note">{{len .Summaries}} named queue{{if ne (len .Summaries) 1}}s{{end}} · <a href="?format=json">JSON</a></p>
{{if .Summaries}}<div class="scroll"><table>
<thead><tr><th>Name</th><th class="n">ID</th><th class="n">Ready</th><th class="n">Processing</th><th class="n">Delayed</th><th class="n">First ready, age</th><th class="n">Longest processing, age</th></tr></thead>
<tbody>
{{range .Summaries}}<tr><td><a href="queue?id={{.ID}}">{{.Name}}</a>{{if .ShuttingDown}} <small>shutting down</small>{{end}}</td><td class="n">{{.ID}}</td><td class="n">{{.Ready}}</td><td class="n">{{.Processing}}</td><td class="n">{{.Delayed}}</td><td class="n">{{optAge .FirstReadyAge}}</td><td class="n">{{optAge .LongestProcessingAge}}</td></tr>
{{end}}</tbody>
</table></div>
<p class="note">Ready is the depth: the items waiting to be handed out. First ready, age: how long the first ready item of the queue's snapshot has been ready: the next to be handed out, and the oldest, in a FIFO queue; with priorities the oldest of the highest priority; with fairness the oldest of the first key, by name, at that priority (hand-out goes round-robin across keys, so it may not be next). Longest processing, age: how long the item processing the longest has been processing. A dash: no such item (or, for ready items, a queue with a custom Storage, which lists none).</p>
{{else}}<p>No named queues: a queue is listed from its actor.New with a Config.Name until its ShutDown.</p>
{{end}}</body>
</html>
{{end}}

{{define "items"}}<div class="scroll"><table>
<thead><tr><th>Item</th><th>State</th><th class="n">Priority</th><th>Keys</th><th class="n">Age</th><th class="n">Requeues</th><th>Deadline</th></tr></thead>
<tbody>
{{range .Items}}<tr><td class="item">{{item .Item}}</td><td>{{.State}}</td><td class="n">{{.Priority}}</td><td>{{keys .Keys}}</td><td class="n">{{if eq .State "delayed"}}–{{else}}{{age .Age}}{{end}}</td><td class="n">{{.Requeues}}</td><td>{{if not .Deadline.IsZero}}<time datetime="{{exact .Deadline}}">{{due .Deadline $.Taken}}</time>{{end}}</td></tr>
{{end}}</tbody>
</table></div>
{{end}}

{{define "queue"}}{{with .Snapshot}}{{template "head" (print .Name " · actorq queue")}}{{end}}
{{with .Snapshot}}<p class="note"><a href="./">All queues</a> · <a href="queue?id={{$.ID}}&n={{$.N}}&format=json">JSON</a> · taken {{stamp .Taken}}</p>
<h1>{{.Name}} <small>#{{$.ID}}</small>{{if .ShuttingDown}} <small>shutting down</small>{{end}}</h1>
<div class="scroll"><table>
<thead><tr><th class="n">Ready</th><th class="n">Processing</th><th class="n">Added again while processing</th><th class="n">Delayed</th></tr></thead>
<tbody><tr><td class="n" id="ready">{{.Ready}}</td><td class="n" id="processing">{{.Processing}}</td><td class="n" id="added-again">{{.AddedAgain}}</td><td class="n" id="delayed">{{.Delayed}}</td></tr></tbody>
</table></div>
{{with .ReadyByPriority}}<h2>Ready by priority</h2>
<div class="scroll"><table>
<tr><th>Priority</th>{{range .}}<td class="n">{{.Priority}}</td>{{end}}</tr>
<tr><th>Ready</th>{{range .}}<td class="n">{{.Count}}</td>{{end}}</tr>
</table></div>
{{end}}
<h2>Ready <small>{{len .ReadyItems}} of {{.Ready}}, {{if fair .ReadyItems}}highest priority first, then key by key in the order of their turns (hand-out goes round-robin across keys), oldest first within a key{{else}}in hand-out order: highest priority first, then oldest first{{end}}</small></h2>
{{template "items" (rows .ReadyItems .Taken)}}
<h2>Processing <small>{{len .ProcessingItems}} of {{.Processing}}, longest first</small></h2>
{{template "items" (rows .ProcessingItems .Taken)}}
<h2>Delayed <small>{{len .DelayedItems}} of {{.Delayed}}, earliest deadline first</small></h2>
{{template "items" (rows .DelayedItems .Taken)}}
{{with .HeldKeys}}<h2>Keys held back <small>waiting for a token or a pause's end, earliest first, then at their caps</small></h2>
<div class="scroll"><table id="held-keys">
<thead><tr><th>Keys</th><th>Why</th><th>Until</th></tr></thead>
<tbody>
{{range .}}<tr><td>{{keys .Keys}}</td><td>{{if eq .Why "cap"}}at its cap{{else if eq .Why "token"}}waiting for a token{{else}}paused{{end}}</td><td>{{if not .Until.IsZero}}<time datetime="{{exact .Until}}">{{due .Until $.Snapshot.Taken}}</time>{{end}}</td></tr>
{{end}}</tbody>
</table></div>
{{end}}
{{with .AdaptiveKeys}}<h2>Adaptive caps <small>keys whose caps learnt from throttles, by path</small></h2>
<div class="scroll"><table id="adaptive-keys">
<thead><tr><th>Keys</th><th class="n">Cap</th><th class="n">Processing</th><th class="n">Min</th><th class="n">Max</th><th class="n">Start</th><th class="n">Throttles</th><th>Last decrease</th></tr></thead>
<tbody>
{{range .}}<tr><td>{{keys .Keys}}</td><td class="n">{{.Cap}}</td><td class="n">{{.Processing}}</td><td class="n">{{.Min}}</td><td class="n">{{.Max}}</td><td class="n">{{.Start}}</td><td class="n">{{.Throttles}}</td><td>{{if not .LastDecrease.IsZero}}<time datetime="{{exact .LastDecrease}}">{{ago .LastDecrease $.Snapshot.Taken}}</time>{{end}}</td></tr>
{{end}}</tbody>
</table></div>
<p class="note">Cap: the most items of the key processing at once, as learnt: it falls at most once a window when a worker reports a throttle, grows by 1 after a window without one in which the key's processing reached half of it, and drifts back to Start while the key is idle. Throttles: those reported since the queue began to remember the key.</p>
{{end}}
<p class="note">Age: how long the item has been ready (since its deadline, for one made ready by it) or, if it is processing, since it was handed out; none for an item waiting on a delay. Requeues: its count in the queue's rate limiter. Deadline: when a delayed item becomes ready, from the instant the snapshot was taken.</p>
<form method="get" action="queue"><input type="hidden" name="id" value="{{$.ID}}">
<label>Items of each state: <input type="number" name="n" min="0" max="10000" value="{{$.N}}"></label> <button>Show</button></form>
{{end}}</body>
</html>
{{end}}
`))
