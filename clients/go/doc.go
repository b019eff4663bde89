// Package graphwire is the Go client of graphwire, the gRPC service that runs
// LangGraph-style agent graphs for chat servers.
//
// A chat server calls it once per turn: Invoke with the user's message, read
// the run's events (message chunks as the reply is written, an interrupt
// when the graph asks a question), and Resume with the answer:
//
//	client, err := graphwire.Dial("127.0.0.1:50051")
//	...
//	run, err := client.Invoke(ctx, "reminders", "user-42", map[string]any{
//		"messages": []map[string]string{{"role": "user", "content": "remind me to call mom at 5pm"}},
//	})
//	...
//	for run.Next() {
//		switch ev := run.Event().(type) {
//		case *graphwire.MessageChunk:
//			fmt.Print(ev.Text)
//		case *graphwire.InterruptEvent:
//			fmt.Println("?", string(ev.Value))
//		}
//	}
//	result, err := run.Result()
//
// Every call takes a context.Context: its deadline and cancellation reach the
// server, and cancelling a run's context cancels the run (versions already
// saved stay). Values cross the wire as JSON text (proto/graphwire/v1): inputs
// are encoded with encoding/json (pass a json.RawMessage to send your own
// bytes), and values come back as json.RawMessage, which you decode into your
// own types (Result.DecodeValues, StateSnapshot.DecodeValues), so integers stay
// exact. Failed calls return an *Error carrying the gRPC status code; compare
// with errors.Is(err, graphwire.ErrNotFound) and the like. A node that raises
// is not an error: the run finishes with ReasonError and Result.Error says
// what.
//
// The generated stubs are in graphwire/graphwirepb, made by
// scripts/gen_protos.py like every other language's.
package graphwire
