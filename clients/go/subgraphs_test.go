package graphwire_test

import (
	"strings"
	"testing"

	"graphwire"
	"graphwire/graphwiretest"
)

// A supervisor with two agent subgraphs (examples/supervisor, issue 17): the
// agents' tokens arrive with their namespace, the writer's question is
// answered by id, GetStateWith nests the writer's snapshot, History lists its
// versions, and Graph nests each agent's drawing.
func TestSupervisorSubgraphs(t *testing.T) {
	srv := graphwiretest.Start(t, "--graph", "supervisor=examples.supervisor:graph")
	client, err := graphwire.Dial(srv.Address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })

	run, err := client.Invoke(ctx(t), "supervisor", "team", user("tidal power"))
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	var last graphwire.Event
	for run.Next() {
		last = run.Event()
		if chunk, ok := last.(*graphwire.MessageChunk); ok {
			ns := graphwire.Info(chunk).Namespace
			if len(ns) != 1 {
				t.Fatalf("a token's namespace %v, want one level", ns)
			}
			agent := strings.SplitN(ns[0], ":", 2)[0]
			tokens[agent] += chunk.Text
		}
	}
	if err := run.Err(); err != nil {
		t.Fatal(err)
	}
	if ns := graphwire.Info(last).Namespace; ns != nil {
		t.Fatalf("RunFinished's namespace %v, want nil", ns)
	}
	want := map[string]string{
		"researcher": "Notes on tidal power: three sources agree it matters, one disagrees.",
		"writer":     "Draft: tidal power, explained in one paragraph from the researcher's notes.",
	}
	if tokens["researcher"] != want["researcher"] || tokens["writer"] != want["writer"] || len(tokens) != 2 {
		t.Fatalf("tokens by agent %q", tokens)
	}
	result, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	if result.Reason != graphwire.ReasonInterrupt || len(result.Interrupts) != 1 {
		t.Fatalf("result %+v", result)
	}
	question := result.Interrupts[0]

	state, err := client.GetStateWith(ctx(t), "supervisor", "team", graphwire.GetStateOptions{Subgraphs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(state.Tasks) != 1 {
		t.Fatalf("tasks %+v", state.Tasks)
	}
	task := state.Tasks[0]
	if task.Node != "writer" || task.CheckpointNs != "writer:"+task.TaskID || task.State == nil || strings.Join(task.State.Next, ",") != "approve" {
		t.Fatalf("the writer's task %+v", task)
	}
	inner, err := client.History(ctx(t), "supervisor", "team", graphwire.HistoryOptions{CheckpointNs: task.CheckpointNs})
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, v := range inner {
		sources = append(sources, v.Checkpoint.Source)
	}
	if strings.Join(sources, ",") != "loop,loop,input" {
		t.Fatalf("the writer's versions %v", sources)
	}
	byID, err := client.GetStateWith(ctx(t), "supervisor", "team", graphwire.GetStateOptions{CheckpointNs: task.CheckpointNs})
	if err != nil || strings.Join(byID.Next, ",") != "approve" {
		t.Fatalf("the writer's state %+v, %v", byID, err)
	}

	run, err = client.Resume(ctx(t), "supervisor", "team", nil, graphwire.WithResumes(map[string]any{question.InterruptID: "yes"}))
	if err != nil {
		t.Fatal(err)
	}
	done, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	var final struct{ Messages []graphwire.Message }
	if err := done.DecodeValues(&final); err != nil {
		t.Fatal(err)
	}
	if done.Reason != graphwire.ReasonEnd || final.Messages[len(final.Messages)-1].Text() != "Published." {
		t.Fatalf("after the answer: %s, %+v", done.Reason, final.Messages)
	}

	graph, err := client.Graph(ctx(t), "supervisor")
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]graphwire.GraphNode{}
	for _, n := range graph.Nodes {
		nodes[n.Name] = n
	}
	if nodes["supervisor"].Subgraph != nil || nodes["writer"].Subgraph == nil {
		t.Fatalf("nodes %+v", graph.Nodes)
	}
	var names []string
	for _, n := range nodes["writer"].Subgraph.Nodes {
		names = append(names, n.Name)
	}
	if strings.Join(names, ",") != "__start__,draft,approve,__end__" {
		t.Fatalf("the writer's nodes %v", names)
	}
}
