package graphwire_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"graphwire"
	"graphwire/graphwiretest"
)

// seenState is what tests/configurable_graph.py's graph keeps: what its node
// saw of config["configurable"], and the messages (the chat model's reply,
// then the tool's answer, JSON of what the tool saw).
type seenState struct {
	Seen     []map[string]any `json:"seen"`
	Messages []struct {
		Content string `json:"content"`
	} `json:"messages"`
}

// A run's configurable reaches the node, the chat model (a configurable
// field) and the ToolNode tool, each seeing the caller's thread id; a key the
// service owns is InvalidArgument naming it.
func TestConfigurable(t *testing.T) {
	srv := graphwiretest.Start(t, "--graph", "seen=tests.configurable_graph:graph")
	client, err := graphwire.Dial(srv.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := ctx(t)
	conf := map[string]any{"user_id": "go-u1", "model": "small", "replies": []string{"hi from go"}}
	run, err := client.Invoke(c, "seen", "go-user-7", user("hi"), graphwire.WithConfigurable(conf))
	if err != nil {
		t.Fatal(err)
	}
	result, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	var state seenState
	if err := result.DecodeValues(&state); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"where": "node", "thread_id": "go-user-7", "user_id": "go-u1", "model": "small"}
	if len(state.Seen) != 1 || !sameJSON(state.Seen[0], want) {
		t.Fatalf("the node saw %v, want %v", state.Seen, want)
	}
	if n := len(state.Messages); n != 3 || state.Messages[1].Content != "hi from go" {
		t.Fatalf("messages %+v: the chat model did not answer with its configured reply", state.Messages)
	}
	var tool map[string]any
	if err := json.Unmarshal([]byte(state.Messages[2].Content), &tool); err != nil {
		t.Fatal(err)
	}
	delete(want, "where")
	if !sameJSON(tool, want) {
		t.Fatalf("the tool saw %v, want %v", tool, want)
	}

	opts := graphwire.UpdateStateOptions{AsNode: "tools", Configurable: map[string]any{"user_id": "go-upd"}}
	if _, err := client.UpdateStateWith(c, "seen", "go-user-7", map[string]any{"seen": []any{}}, opts); err != nil {
		t.Fatal(err)
	}
	history, err := client.History(c, "seen", "go-user-7", graphwire.HistoryOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(history[0].Metadata, &meta); err != nil || meta["user_id"] != "go-upd" {
		t.Fatalf("the update's metadata %s (%v)", history[0].Metadata, err)
	}

	for _, key := range []string{"thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "__pregel_runtime"} {
		run, err := client.Invoke(c, "seen", "go-reserved", user("hi"), graphwire.WithConfigurable(map[string]any{key: "x"}))
		if err == nil {
			_, err = run.Result()
		}
		var ge *graphwire.Error
		if !errors.Is(err, graphwire.ErrInvalidArgument) || !errors.As(err, &ge) ||
			!strings.HasPrefix(ge.Message, "config.configurable_json."+key+": ") {
			t.Fatalf("configurable key %q: %v", key, err)
		}
	}
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
