package graphwire_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"graphwire"
	"graphwire/graphwiretest"
)

const (
	question = "Add a reminder to call mom at 5pm?"
	done     = "Done: I'll remind you to call mom at 5pm."
)

var testGraphs = []string{
	"--graph", "reminders=examples.reminders:graph",
	"--graph", "chain3=tests.graphs:chain3",
	"--graph", "gated=tests.graphs:gated",
	"--graph", "gated_question=tests.graphs:gated_question",
}

// shared is one server (with the test graphs, and a gates directory for
// "gated") for the tests that do not change the server itself.
func shared(t *testing.T) (*graphwire.Client, string) {
	t.Helper()
	gates := t.TempDir()
	t.Setenv("GRAPHWIRE_TEST_GATES", gates)
	srv := graphwiretest.Start(t, testGraphs...)
	client, err := graphwire.Dial(srv.Address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client, gates
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func user(text string) map[string]any {
	return map[string]any{"messages": []map[string]string{{"role": "user", "content": text}}}
}

type reminderState struct {
	Messages  []graphwire.Message `json:"messages"`
	Reminders []map[string]string `json:"reminders"`
}

func TestConversation(t *testing.T) {
	client, _ := shared(t)
	run, err := client.Invoke(ctx(t), "reminders", "mom", user("remind me to call mom at 5pm"))
	if err != nil {
		t.Fatal(err)
	}
	var events []graphwire.Event
	for run.Next() {
		events = append(events, run.Event())
	}
	if err := run.Err(); err != nil {
		t.Fatal(err)
	}
	if _, ok := events[0].(*graphwire.RunStarted); !ok {
		t.Fatalf("first event %T, want *RunStarted", events[0])
	}
	if _, ok := events[len(events)-1].(*graphwire.RunFinished); !ok {
		t.Fatalf("last event %T, want *RunFinished", events[len(events)-1])
	}
	var steps []int
	var asked *graphwire.InterruptEvent
	for i, ev := range events {
		if got := graphwire.Info(ev).Seq; got != uint32(i+1) {
			t.Fatalf("event %d has seq %d", i, got)
		}
		switch e := ev.(type) {
		case *graphwire.StepStarted:
			steps = append(steps, e.Step)
		case *graphwire.InterruptEvent:
			asked = e
		}
	}
	if len(steps) < 2 || steps[0] != 0 || steps[1] != 1 {
		t.Fatalf("steps %v, want 0, 1, ...", steps)
	}
	if asked == nil || asked.Node != "ask_user" || string(asked.Value) != `"`+question+`"` {
		t.Fatalf("interrupt %+v", asked)
	}

	result, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	if !result.Interrupted() || result.Interrupts[0].InterruptID != asked.InterruptID {
		t.Fatalf("result %+v", result)
	}

	resumed, err := client.Resume(ctx(t), "reminders", "mom", "yes", graphwire.WithEventKinds(graphwire.KindMessageChunk))
	if err != nil {
		t.Fatal(err)
	}
	var reply strings.Builder
	for resumed.Next() {
		switch e := resumed.Event().(type) {
		case *graphwire.MessageChunk:
			reply.WriteString(e.Text)
		case *graphwire.RunStarted, *graphwire.RunFinished:
		default:
			t.Fatalf("an event not asked for: %T", e)
		}
	}
	if reply.String() != done {
		t.Fatalf("streamed %q", reply.String())
	}
	end, err := resumed.Result()
	if err != nil {
		t.Fatal(err)
	}
	var state reminderState
	if err := end.DecodeValues(&state); err != nil {
		t.Fatal(err)
	}
	last := state.Messages[len(state.Messages)-1]
	if end.Reason != graphwire.ReasonEnd || last.Text() != done || last.Speaker() != "assistant" ||
		len(state.Reminders) != 1 || state.Reminders[0]["text"] != "call mom" {
		t.Fatalf("end %s, state %+v", end.Reason, state)
	}
}

func TestRegenerateAndHistory(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	for _, step := range []func() (*graphwire.Run, error){
		func() (*graphwire.Run, error) {
			return client.Invoke(c, "reminders", "regen", user("remind me to call mom at 5pm"))
		},
		func() (*graphwire.Run, error) { return client.Resume(c, "reminders", "regen", "yes") },
	} {
		run, err := step()
		if err == nil {
			_, err = run.Result()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	history, err := client.History(c, "reminders", "regen", graphwire.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var before *graphwire.StateSnapshot
	for i := range history {
		if len(history[i].Next) == 1 && history[i].Next[0] == "model" {
			before = &history[i]
			break
		}
	}
	if before == nil {
		t.Fatal("no version due to run model")
	}
	run, err := client.Fork(c, "reminders", "regen", before.Checkpoint.CheckpointID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	var old, regenerated reminderState
	if err := history[0].DecodeValues(&old); err != nil {
		t.Fatal(err)
	}
	if err := again.DecodeValues(&regenerated); err != nil {
		t.Fatal(err)
	}
	last, prev := regenerated.Messages[len(regenerated.Messages)-1], old.Messages[len(old.Messages)-1]
	if again.Reason != graphwire.ReasonEnd || last.Text() != done || last.ID == prev.ID {
		t.Fatalf("regenerated %s %+v (old reply %+v)", again.Reason, last, prev)
	}
	state, err := client.GetState(c, "reminders", "regen", "")
	if err != nil {
		t.Fatal(err)
	}
	// The version the fork went back to: its task (model) finished on the old branch, with a result.
	wrote, err := client.GetState(c, "reminders", "regen", before.Checkpoint.CheckpointID)
	var result struct{ Messages []graphwire.Message }
	if err != nil || len(wrote.Tasks) != 1 || wrote.Tasks[0].Node != "model" || json.Unmarshal(wrote.Tasks[0].Result, &result) != nil ||
		result.Messages[0].Text() != done {
		t.Fatalf("a finished task's result: %+v, %v", wrote.Tasks, err)
	}
	if state.Checkpoint.CheckpointID != again.Checkpoint.CheckpointID || len(state.Next) != 0 {
		t.Fatalf("newest %+v", state.Checkpoint)
	}
	ref, err := client.UpdateState(c, "reminders", "regen", map[string]any{"reminders": []map[string]string{{"text": "x", "at": "y"}}}, "tools", "")
	if err != nil || ref.Source != "update" || ref.ParentID != state.Checkpoint.CheckpointID {
		t.Fatalf("update %+v, %v", ref, err)
	}
	if err := client.DeleteThread(c, "reminders", "regen"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.GetState(c, "reminders", "regen", ""); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestIntegersStayExact(t *testing.T) {
	client, _ := shared(t)
	run, err := client.Invoke(ctx(t), "chain3", "big", json.RawMessage(`{"n": 1180591620717411303424}`)) // 2^70
	if err != nil {
		t.Fatal(err)
	}
	result, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		N json.Number `json:"n"`
	}
	if err := result.DecodeValues(&state); err != nil {
		t.Fatal(err)
	}
	if state.N != "1180591620717411303427" {
		t.Fatalf("n = %s", state.N)
	}
}

func TestTypedErrors(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	run, err := client.Invoke(c, "nope", "t", user("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Result(); !errors.Is(err, graphwire.ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown graph: %v", err)
	}
	run, _ = client.Invoke(c, "reminders", "t", []int{1, 2})
	var failure *graphwire.Error
	if _, err := run.Result(); !errors.As(err, &failure) || !errors.Is(err, graphwire.ErrInvalidArgument) ||
		!strings.HasPrefix(failure.Message, "input_json:") {
		t.Fatalf("bad input: %v", err)
	}
	run, _ = client.Invoke(c, "chain3", "idle", map[string]int{"n": 0})
	if _, err := run.Result(); err != nil {
		t.Fatal(err)
	}
	run, _ = client.Resume(c, "chain3", "idle", "yes")
	if _, err := run.Result(); !errors.Is(err, graphwire.ErrFailedPrecondition) {
		t.Fatalf("resume with nothing pending: %v", err)
	}
	if _, err := client.GetState(c, "reminders", "no-such-thread", ""); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("unknown thread: %v", err)
	}
	if _, err := client.Invoke(c, "reminders", "t", user("hi"), graphwire.WithEventKinds("updates")); err == nil {
		t.Fatal("an unknown event kind was accepted")
	}
}

func TestContextCancelsTheRun(t *testing.T) {
	client, gates := shared(t)
	c, cancel := context.WithCancel(ctx(t))
	run, err := client.Invoke(c, "gated", "held", map[string]any{"gate": "held-gate", "label": "first"})
	if err != nil {
		t.Fatal(err)
	}
	for run.Next() {
		if _, ok := run.Event().(*graphwire.TaskStarted); ok {
			break // the node is waiting at its gate
		}
	}
	cancel()
	for run.Next() {
	}
	if err := run.Err(); !errors.Is(err, graphwire.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	// The server cancelled the run: the thread takes its next one (whose gate is open).
	if err := os.WriteFile(filepath.Join(gates, "open-gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	next, err := client.Invoke(ctx(t), "gated", "held", map[string]any{"gate": "open-gate", "label": "second"}, graphwire.WithEnqueue())
	if err != nil {
		t.Fatal(err)
	}
	if result, err := next.Result(); err != nil || result.Reason != graphwire.ReasonEnd {
		t.Fatalf("next run: %+v, %v", result, err)
	}

	short, stop := context.WithTimeout(ctx(t), 300*time.Millisecond)
	defer stop()
	run, _ = client.Invoke(short, "gated", "deadline", map[string]any{"gate": "never-opened", "label": "x"})
	if _, err := run.Result(); !errors.Is(err, graphwire.ErrDeadlineExceeded) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past the deadline: %v", err)
	}
}

func TestToken(t *testing.T) {
	srv := graphwiretest.Start(t, "--auth-token", "s3cret-token-for-go")
	anonymous, _ := graphwire.Dial(srv.Address)
	defer anonymous.Close()
	if _, err := anonymous.Graphs(ctx(t)); !errors.Is(err, graphwire.ErrUnauthenticated) {
		t.Fatalf("without a token: %v", err)
	}
	client, _ := graphwire.Dial(srv.Address, graphwire.WithToken("s3cret-token-for-go"))
	defer client.Close()
	graphs, err := client.Graphs(ctx(t))
	if err != nil || len(graphs) != 1 || graphs[0].Name != "reminders" {
		t.Fatalf("graphs %+v, %v", graphs, err)
	}
	info, err := client.Graph(ctx(t), "reminders")
	if err != nil || len(info.Edges) == 0 || info.Nodes[1].Name != "model" {
		t.Fatalf("graph %+v, %v", info, err)
	}
}
