package graphwire_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"graphwire"
	"graphwire/graphwiretest"
)

// The default assistants' ids: LangGraph's Agent Server's (a UUID 5 of the graph's name).
const (
	defaultSeen      = "709edb79-9ca1-55be-b3f7-f9bc9529293a"
	defaultQuestions = "824023b5-7c63-51fa-bcef-dab47c6d45d3"
)

const (
	acmeToken   = "acme-token-0123456789"
	globexToken = "globex-token-0123456789"
)

// assistantServer serves seen (tests/configurable_graph.py: its look node
// reports the run's configurable; skip_model ends the run there),
// user_memories (tests/graphs.py: greets context.user_id in context.locale)
// and questions (two nodes that each ask), for two tenants; it returns a
// client of each.
func assistantServer(t *testing.T) (acme, globex *graphwire.Client) {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens.toml")
	if err := os.WriteFile(tokens, []byte("acme = \""+acmeToken+"\"\nglobex = \""+globexToken+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := graphwiretest.Start(t, "--graph", "seen=tests.configurable_graph:graph",
		"--graph", "user_memories=tests.graphs:user_memories", "--graph", "questions=tests.graphs:questions",
		"--auth-tokens", tokens)
	dial := func(token string) *graphwire.Client {
		client, err := graphwire.Dial(srv.Address, graphwire.WithToken(token))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Close() })
		return client
	}
	return dial(acmeToken), dial(globexToken)
}

func ids(found []graphwire.Assistant) []string {
	out := make([]string, len(found))
	for i, a := range found {
		out[i] = a.AssistantID
	}
	return out
}

func TestAssistants(t *testing.T) {
	client, globex := assistantServer(t)
	c := ctx(t)

	// Each graph's default assistant, with LangGraph's id.
	defaults, err := client.SearchAssistants(c, graphwire.AssistantSearchOptions{
		AssistantFilter: graphwire.AssistantFilter{Metadata: map[string]any{"created_by": "system"}},
		SortBy:          graphwire.SortByGraph, Ascending: true})
	if err != nil || len(defaults) != 3 || defaults[0].AssistantID != defaultQuestions || defaults[1].Graph != "seen" ||
		defaults[1].AssistantID != defaultSeen {
		t.Fatalf("default assistants %+v, %v", defaults, err)
	}
	if d := defaults[1]; d.Name != "seen" || d.Version != 1 || string(d.Context) != "{}" || d.Config.Configurable != nil {
		t.Fatalf("the default assistant %+v", d)
	}

	mark := map[string]any{"test": "go-lifecycle"}
	made, err := client.CreateAssistant(c, "seen", graphwire.CreateAssistantOptions{Name: "Looker", Metadata: mark,
		Config: &graphwire.AssistantConfig{Configurable: map[string]any{"model": "v1"}}, Context: map[string]any{"user": "u"}})
	if err != nil {
		t.Fatal(err)
	}
	if made.Version != 1 || made.Name != "Looker" || made.Description != "" || made.Config.Configurable["model"] != "v1" ||
		!sameJSON(json.RawMessage(made.Context), map[string]any{"user": "u"}) || made.CreatedAt.IsZero() {
		t.Fatalf("made %+v", made)
	}
	if _, err := client.CreateAssistant(c, "seen", graphwire.CreateAssistantOptions{AssistantID: made.AssistantID}); !errors.Is(err, graphwire.ErrAlreadyExists) {
		t.Fatalf("a taken id: %v", err)
	}
	same, err := client.CreateAssistant(c, "questions", graphwire.CreateAssistantOptions{AssistantID: made.AssistantID, ReturnExisting: true})
	if err != nil || same.Graph != "seen" || same.Version != 1 {
		t.Fatalf("ReturnExisting: %+v, %v", same, err)
	}

	desc := "d"
	v2, err := client.UpdateAssistant(c, made.AssistantID, graphwire.UpdateAssistantOptions{Description: &desc,
		Config: &graphwire.AssistantConfig{Configurable: map[string]any{"model": "v2"}}, Metadata: map[string]any{"tier": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Version != 2 || v2.Config.Configurable["model"] != "v2" || v2.Description != "d" || v2.Name != "Looker" ||
		!sameJSON(json.RawMessage(v2.Metadata), map[string]any{"test": "go-lifecycle", "tier": 2}) ||
		!v2.CreatedAt.Equal(made.CreatedAt) || v2.UpdatedAt.Before(made.UpdatedAt) {
		t.Fatalf("v2 %+v", v2)
	}
	versions, err := client.ListAssistantVersions(c, made.AssistantID, graphwire.AssistantVersionsOptions{})
	if err != nil || len(versions) != 2 || versions[0].Version != 2 || versions[1].Version != 1 {
		t.Fatalf("versions %+v, %v", versions, err)
	}
	tiered, err := client.ListAssistantVersions(c, made.AssistantID, graphwire.AssistantVersionsOptions{Metadata: map[string]any{"tier": 2}})
	if err != nil || len(tiered) != 1 || tiered[0].Version != 2 {
		t.Fatalf("versions by metadata %+v, %v", tiered, err)
	}
	back, err := client.SetAssistantVersion(c, made.AssistantID, 1)
	if err != nil || back.Version != 1 || back.Config.Configurable["model"] != "v1" {
		t.Fatalf("back to 1: %+v, %v", back, err)
	}
	if _, err := client.SetAssistantVersion(c, made.AssistantID, 9); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("an unknown version: %v", err)
	}
	current, err := client.GetAssistant(c, made.AssistantID)
	if err != nil || current.Version != 1 {
		t.Fatalf("current %+v, %v", current, err)
	}

	// Search: filters, order, pages; count.
	pagers := map[string]any{"test": "go-pager"}
	var made4 []string
	for _, name := range []string{"Pager 0", "Pager 1", "Pager 2", "Pager 3"} {
		a, err := client.CreateAssistant(c, "questions", graphwire.CreateAssistantOptions{Name: name, Metadata: pagers})
		if err != nil {
			t.Fatal(err)
		}
		made4 = append(made4, a.AssistantID)
	}
	filter := graphwire.AssistantFilter{Metadata: pagers}
	newest, err := client.SearchAssistants(c, graphwire.AssistantSearchOptions{AssistantFilter: filter})
	if want := []string{made4[3], made4[2], made4[1], made4[0]}; err != nil || strings.Join(ids(newest), ",") != strings.Join(want, ",") {
		t.Fatalf("newest first %v, %v", ids(newest), err)
	}
	page, err := client.SearchAssistants(c, graphwire.AssistantSearchOptions{AssistantFilter: filter,
		SortBy: graphwire.SortByName, Ascending: true, Limit: 2, Offset: 1})
	if err != nil || len(page) != 2 || page[0].Name != "Pager 1" || page[1].Name != "Pager 2" {
		t.Fatalf("a page by name %+v, %v", page, err)
	}
	named, err := client.SearchAssistants(c, graphwire.AssistantSearchOptions{
		AssistantFilter: graphwire.AssistantFilter{Name: "pager 3", Metadata: pagers}})
	if err != nil || len(named) != 1 || named[0].AssistantID != made4[3] {
		t.Fatalf("by name %+v, %v", named, err)
	}
	if n, err := client.CountAssistants(c, filter); err != nil || n != 4 {
		t.Fatalf("count %d, %v", n, err)
	}
	if n, err := client.CountAssistants(c, graphwire.AssistantFilter{Graph: "seen", Metadata: pagers}); err != nil || n != 0 {
		t.Fatalf("count of another graph %d, %v", n, err)
	}
	if _, err := client.SearchAssistants(c, graphwire.AssistantSearchOptions{SortBy: "size"}); err == nil ||
		!strings.Contains(err.Error(), `unknown AssistantSortBy "size"`) {
		t.Fatalf("a bad sort: %v", err)
	}

	// Bad requests name the field.
	if _, err := client.CreateAssistant(c, "nope", graphwire.CreateAssistantOptions{}); !errors.Is(err, graphwire.ErrNotFound) ||
		!strings.Contains(err.Error(), "unknown graph 'nope'") {
		t.Fatalf("an unknown graph: %v", err)
	}
	bad := &graphwire.AssistantConfig{Configurable: map[string]any{"thread_id": "t"}}
	if _, err := client.CreateAssistant(c, "seen", graphwire.CreateAssistantOptions{Config: bad}); !errors.Is(err, graphwire.ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "config_json.configurable.thread_id") {
		t.Fatalf("a service key: %v", err)
	}
	if _, err := client.UpdateAssistant(c, made.AssistantID, graphwire.UpdateAssistantOptions{}); !errors.Is(err, graphwire.ErrInvalidArgument) {
		t.Fatalf("an update of nothing: %v", err)
	}

	// Delete.
	if deleted, err := client.DeleteAssistant(c, made.AssistantID); err != nil || !deleted {
		t.Fatalf("delete: %v, %v", deleted, err)
	}
	if deleted, err := client.DeleteAssistant(c, made.AssistantID); err != nil || deleted {
		t.Fatalf("delete again: %v, %v", deleted, err)
	}
	if _, err := client.GetAssistant(c, made.AssistantID); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}

	// Tenants: each has its own; the defaults are shared and changed by none.
	if _, err := client.CreateAssistant(c, "seen", graphwire.CreateAssistantOptions{AssistantID: "go-shared", Name: "Acme's"}); err != nil {
		t.Fatal(err)
	}
	if _, err := globex.GetAssistant(c, "go-shared"); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("another tenant's assistant: %v", err)
	}
	if theirs, err := globex.CreateAssistant(c, "seen", graphwire.CreateAssistantOptions{AssistantID: "go-shared", Name: "Globex's"}); err != nil || theirs.Name != "Globex's" {
		t.Fatalf("the same id for another tenant: %+v, %v", theirs, err)
	}
	if mine, err := client.GetAssistant(c, "go-shared"); err != nil || mine.Name != "Acme's" {
		t.Fatalf("acme's own: %+v, %v", mine, err)
	}
	if d, err := globex.GetAssistant(c, defaultSeen); err != nil || d.Graph != "seen" {
		t.Fatalf("a shared default: %+v, %v", d, err)
	}
	taken := "taken over"
	if _, err := globex.UpdateAssistant(c, defaultSeen, graphwire.UpdateAssistantOptions{Name: &taken}); !errors.Is(err, graphwire.ErrPermissionDenied) {
		t.Fatalf("updating a shared default: %v", err)
	}
	if _, err := globex.DeleteAssistant(c, defaultSeen); !errors.Is(err, graphwire.ErrPermissionDenied) {
		t.Fatalf("deleting a shared default: %v", err)
	}
}

// result runs a call that starts a run and returns how it ended.
func result(t *testing.T, run *graphwire.Run, err error) *graphwire.Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runErr is the error of a run call, whether starting it or reading it failed.
func runErr(run *graphwire.Run, err error) error {
	if err != nil {
		return err
	}
	_, err = run.Result()
	return err
}

// metadataAssistants is the set of "assistant_id"s in the metadata of a thread's versions.
func metadataAssistants(t *testing.T, client *graphwire.Client, graph, thread string) map[string]bool {
	t.Helper()
	history, err := client.History(ctx(t), graph, thread, graphwire.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, s := range history {
		var meta struct {
			AssistantID string `json:"assistant_id"`
		}
		if err := json.Unmarshal(s.Metadata, &meta); err != nil {
			t.Fatal(err)
		}
		found[meta.AssistantID] = true
	}
	return found
}

// A run naming an assistant takes its config and context as defaults, the
// call's values winning key by key; Resume and Fork name it too.
func TestRunsNamingAnAssistant(t *testing.T) {
	client, _ := assistantServer(t)
	c := ctx(t)
	looker, err := client.CreateAssistant(c, "seen", graphwire.CreateAssistantOptions{Config: &graphwire.AssistantConfig{
		Configurable: map[string]any{"user_id": "from-assistant", "model": "big", "skip_model": true}}})
	if err != nil {
		t.Fatal(err)
	}
	var state seenState
	run, err := client.Invoke(c, "", "go-a1", map[string]any{"messages": []any{}}, graphwire.WithAssistant(looker.AssistantID))
	if err := result(t, run, err).DecodeValues(&state); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"where": "node", "thread_id": "go-a1", "user_id": "from-assistant", "model": "big"}
	if len(state.Seen) != 1 || !sameJSON(state.Seen[0], want) {
		t.Fatalf("the node saw %v, want %v", state.Seen, want)
	}
	run, err = client.Invoke(c, "seen", "go-a2", map[string]any{"messages": []any{}}, graphwire.WithAssistant(looker.AssistantID),
		graphwire.WithConfigurable(map[string]any{"model": "small"}))
	if err := result(t, run, err).DecodeValues(&state); err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"where": "node", "thread_id": "go-a2", "user_id": "from-assistant", "model": "small"}
	if len(state.Seen) != 1 || !sameJSON(state.Seen[0], want) {
		t.Fatalf("with the call's model, the node saw %v, want %v", state.Seen, want)
	}
	if found := metadataAssistants(t, client, "seen", "go-a1"); len(found) != 1 || !found[looker.AssistantID] {
		t.Fatalf("the versions' assistant ids: %v", found)
	}

	greeter, err := client.CreateAssistant(c, "user_memories", graphwire.CreateAssistantOptions{
		Context: map[string]any{"user_id": "ada", "locale": "fr"}})
	if err != nil {
		t.Fatal(err)
	}
	var turn struct {
		Greeting string `json:"greeting"`
	}
	run, err = client.Invoke(c, "", "go-a3", map[string]any{}, graphwire.WithAssistant(greeter.AssistantID))
	if err := result(t, run, err).DecodeValues(&turn); err != nil || turn.Greeting != "bonjour ada" {
		t.Fatalf("greeting %q (%v): the assistant's context", turn.Greeting, err)
	}

	if err := runErr(client.Invoke(c, "questions", "go-a4", map[string]any{}, graphwire.WithAssistant(looker.AssistantID))); !errors.Is(err, graphwire.ErrInvalidArgument) || !strings.Contains(err.Error(), "runs graph") {
		t.Fatalf("an assistant of another graph: %v", err)
	}
	if err := runErr(client.Invoke(c, "", "go-a4", map[string]any{}, graphwire.WithAssistant("missing"))); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("an unknown assistant: %v", err)
	}

	asker, err := client.CreateAssistant(c, "questions", graphwire.CreateAssistantOptions{
		Config: &graphwire.AssistantConfig{RecursionLimit: 50}})
	if err != nil || asker.Config.RecursionLimit != 50 {
		t.Fatalf("asker %+v, %v", asker, err)
	}
	as := graphwire.WithAssistant(asker.AssistantID)
	run, err = client.Invoke(c, "", "go-q", map[string]any{}, as)
	if r := result(t, run, err); !r.Interrupted() {
		t.Fatalf("the first question: %s", r.Reason)
	}
	run, err = client.Resume(c, "", "go-q", "yes", as)
	if r := result(t, run, err); !r.Interrupted() || !strings.Contains(string(r.Values), "first:yes") {
		t.Fatalf("the second question: %s %s", r.Reason, r.Values)
	}
	history, err := client.History(c, "questions", "go-q", graphwire.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := history[len(history)-1].Checkpoint.CheckpointID
	run, err = client.Fork(c, "", "go-q", first, as)
	if r := result(t, run, err); !r.Interrupted() {
		t.Fatalf("the fork: %s", r.Reason)
	}
	found := metadataAssistants(t, client, "questions", "go-q")
	if len(found) != 1 || !found[asker.AssistantID] {
		t.Fatalf("the versions' assistant ids after resume and fork: %v", found)
	}
}
