package graphwire_test

import (
	"strings"
	"testing"

	"graphwire"
	"graphwire/graphwiretest"
)

// WithChannels opens several connections (a thread's calls on the one its id
// names, others in turn); each run (a stream) completes on the connection it
// started on, and reads of what the others wrote see it (a server with
// --workers N gives each connection to one worker: tests/replicas/test_workers.py
// shows the spread and a thread staying with one).
func TestChannelsSpreadCallsOverConnections(t *testing.T) {
	srv := graphwiretest.Start(t, testGraphs...)
	client, err := graphwire.Dial(srv.Address, graphwire.WithChannels(3))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := ctx(t)
	for i := 0; i < 4; i++ {
		run, err := client.Invoke(c, "chain3", "go-channels", map[string]any{"n": 3 * i})
		if err != nil {
			t.Fatal(err)
		}
		result, err := run.Result()
		if err != nil {
			t.Fatal(err)
		}
		var values struct{ N int }
		if err := result.DecodeValues(&values); err != nil || result.Reason != graphwire.ReasonEnd || values.N != 3*i+3 {
			t.Fatalf("turn %d: %+v (%v)", i, result, err)
		}
	}
	runs, err := client.ListRuns(c, "chain3", "go-channels", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs listed, want 4", len(runs))
	}
}

func TestChannelsOutOfRangeAreRefused(t *testing.T) {
	for _, n := range []int{0, -1, 2000} {
		_, err := graphwire.Dial("127.0.0.1:1", graphwire.WithChannels(n))
		if err == nil || !strings.Contains(err.Error(), "channels must be a whole number from 1 to 1024") {
			t.Fatalf("WithChannels(%d): %v", n, err)
		}
	}
}
