package graphwire_test

import (
	"encoding/json"
	"errors"
	"testing"

	"graphwire"
)

// A chat-safe turn is refused with ErrFailedPrecondition, and RefusedOf(err)
// carries the pending interrupts (WithRejectInterrupted) or the newest version
// (WithExpectCheckpoint); the refused call left no run record.
func TestChatSafeTurns(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	run, err := client.Invoke(c, "gated_question", "go-chat-safe", map[string]any{"label": "q"})
	if err != nil {
		t.Fatal(err)
	}
	asked, err := run.Result()
	if err != nil || asked.Reason != graphwire.ReasonInterrupt {
		t.Fatalf("first turn: %+v, %v", asked, err)
	}
	seen := asked.Checkpoint.CheckpointID

	again, err := client.Invoke(c, "gated_question", "go-chat-safe", map[string]any{"label": "new"}, graphwire.WithRejectInterrupted())
	if err != nil {
		t.Fatal(err)
	}
	_, err = again.Result()
	refused := graphwire.RefusedOf(err)
	if !errors.Is(err, graphwire.ErrFailedPrecondition) || refused == nil || refused.Reason != "interrupted" || refused.CheckpointID != seen {
		t.Fatalf("refusal: %v, %+v", err, refused)
	}
	var value string
	if len(refused.Interrupts) != 1 || refused.Interrupts[0].InterruptID != asked.Interrupts[0].InterruptID ||
		json.Unmarshal(refused.Interrupts[0].Value, &value) != nil || value != "Go on with q?" {
		t.Fatalf("interrupts %+v", refused.Interrupts)
	}
	if runs, err := client.ListRuns(c, "gated_question", "go-chat-safe", 0); err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, %v", runs, err)
	}

	stale, err := client.Resume(c, "gated_question", "go-chat-safe", "yes", graphwire.WithExpectCheckpoint("an-old-one"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = stale.Result()
	if r := graphwire.RefusedOf(err); r == nil || r.Reason != "stale_checkpoint" || r.CheckpointID != seen {
		t.Fatalf("stale: %v, %+v", err, r)
	}
	fresh, err := client.Resume(c, "gated_question", "go-chat-safe", "yes", graphwire.WithExpectCheckpoint(seen))
	if err != nil {
		t.Fatal(err)
	}
	if done, err := fresh.Result(); err != nil || done.Reason != graphwire.ReasonEnd {
		t.Fatalf("fresh: %+v, %v", done, err)
	}
	if _, err := client.Resume(c, "gated_question", "go-chat-safe", "x", graphwire.WithRejectInterrupted()); err == nil {
		t.Fatal("WithRejectInterrupted was accepted on Resume")
	}
	if graphwire.RefusedOf(errors.New("other")) != nil {
		t.Fatal("a refusal from nowhere")
	}
}

// MultitaskRollback cancels the thread's running run, deletes its versions and
// runs; the records name each other.
func TestRollbackReplacesTheRunningRun(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	first, err := client.Invoke(c, "gated", "go-rollback", map[string]any{"label": "first"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Result(); err != nil {
		t.Fatal(err)
	}
	held, err := client.Invoke(c, "gated", "go-rollback", map[string]any{"gate": "never-opened", "label": "held"})
	if err != nil {
		t.Fatal(err)
	}
	for held.Next() {
		if _, ok := held.Event().(*graphwire.CustomEvent); ok {
			break // its node waits at its gate
		}
	}
	third, err := client.Invoke(c, "gated", "go-rollback", map[string]any{"gate": nil, "label": "third"},
		graphwire.WithMultitaskStrategy(graphwire.MultitaskRollback))
	if err != nil {
		t.Fatal(err)
	}
	result, err := third.Result()
	if err != nil || result.Reason != graphwire.ReasonEnd {
		t.Fatalf("third: %+v, %v", result, err)
	}
	if end, err := held.Result(); err != nil || end.Reason != graphwire.ReasonCancelled {
		t.Fatalf("held: %+v, %v", end, err)
	}
	var state struct{ Log []string }
	if err := json.Unmarshal(result.Values, &state); err != nil || len(state.Log) != 2 || state.Log[1] != "third" {
		t.Fatalf("state %s, %v", result.Values, err)
	}
	info, err := client.GetRun(c, held.RunID())
	if err != nil || info.Status != graphwire.RunRolledBack || info.ReplacedBy != result.RunID {
		t.Fatalf("held record %+v, %v", info, err)
	}
	if mine, err := client.GetRun(c, result.RunID); err != nil || mine.Replaces != held.RunID() {
		t.Fatalf("third record %+v, %v", mine, err)
	}
	// The request is sent as asked; the server says what is wrong with it.
	bad, err := client.Invoke(c, "gated", "go-rollback", nil, graphwire.WithEnqueue(),
		graphwire.WithMultitaskStrategy(graphwire.MultitaskInterrupt))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Result(); !errors.Is(err, graphwire.ErrInvalidArgument) {
		t.Fatalf("enqueue with interrupt: %v", err)
	}
}
