package graphwire

import (
	"encoding/json"

	pb "graphwire/graphwirepb"
)

// EventInfo is what every event carries: its place in the run, the run, and
// where in the graph it happened.
type EventInfo struct {
	Seq   uint32 // strictly increasing from 1 within the run (gaps when kinds are filtered)
	RunID string
	// Namespace is the subgraph the event comes from, outermost first (one
	// "node:task_id" per level, or "node" for a subgraph compiled with
	// checkpointer=True), as LangGraph's stream(subgraphs=True) names it; nil
	// for the served graph's own events. So a chat server tells a
	// supervisor's tokens from an agent's.
	Namespace []string
}

func (e EventInfo) info() EventInfo { return e }

// Event is one of the run's events: *RunStarted, *StepStarted, *StepFinished,
// *TaskStarted, *TaskFinished, *ValuesEvent, *CustomEvent, *MessageChunk,
// *CheckpointSaved, *InterruptEvent or *RunFinished. Use a type switch.
type Event interface {
	info() EventInfo
}

// Info is an event's seq and run id.
func Info(e Event) EventInfo { return e.info() }

// TaskRef is a task of a step: its id and the node it runs.
type TaskRef struct {
	TaskID string
	Node   string
}

// RunStarted is always the first event.
type RunStarted struct {
	EventInfo
	ThreadID     string
	Graph        string
	CheckpointID string // the version the run starts from; empty for a new thread
}

// StepStarted: a superstep's tasks are planned and about to run.
type StepStarted struct {
	EventInfo
	Step  int
	Tasks []TaskRef
}

// StepFinished: a superstep's tasks finished and their writes were applied.
type StepFinished struct {
	EventInfo
	Step int
}

// TaskStarted: a node began, with the input it sees.
type TaskStarted struct {
	EventInfo
	Step     int
	TaskID   string
	Node     string
	Input    json.RawMessage
	Triggers []string
}

// TaskFinished: a node returned (Update), raised (Error), stopped at an
// interrupt, or was not run because its writes were known (Cached).
type TaskFinished struct {
	EventInfo
	Step       int
	TaskID     string
	Node       string
	Update     json.RawMessage // nil when it raised, interrupted or returned none
	Error      *ErrorInfo
	Interrupts []Interrupt
	Cached     bool
}

// ValuesEvent is the thread's full state after a step.
type ValuesEvent struct {
	EventInfo
	Step   int
	Values json.RawMessage
}

// CustomEvent is what a node wrote with get_stream_writer().
type CustomEvent struct {
	EventInfo
	Step    int
	TaskID  string
	Node    string
	Payload json.RawMessage
}

// MessageChunk is a piece of a message a node is producing (an LLM token, say).
type MessageChunk struct {
	EventInfo
	Step     int
	TaskID   string
	Node     string
	Chunk    json.RawMessage // typically {"id": ..., "content": ...}
	Metadata json.RawMessage
	Text     string // the chunk's content as text (a string, or the text parts of content blocks)
}

// CheckpointSaved: a version of the thread's state was saved.
type CheckpointSaved struct {
	EventInfo
	Checkpoint CheckpointRef
}

// InterruptEvent: a node asked a question; the run will stop.
type InterruptEvent struct {
	EventInfo
	Interrupt
}

// RunFinished is always the last event.
type RunFinished struct {
	EventInfo
	Reason     FinishReason
	Checkpoint *CheckpointRef
	Values     json.RawMessage
	Error      *ErrorInfo
	Interrupts []Interrupt
}

var reasons = map[pb.FinishReason]FinishReason{
	pb.FinishReason_FINISH_REASON_END:             ReasonEnd,
	pb.FinishReason_FINISH_REASON_INTERRUPT:       ReasonInterrupt,
	pb.FinishReason_FINISH_REASON_ERROR:           ReasonError,
	pb.FinishReason_FINISH_REASON_RECURSION_LIMIT: ReasonRecursionLimit,
	pb.FinishReason_FINISH_REASON_CANCELLED:       ReasonCancelled,
}

// raw is a *_json field's text as JSON; nil when empty (no value).
func raw(text string) json.RawMessage {
	if text == "" {
		return nil
	}
	return json.RawMessage(text)
}

func errorInfo(m *pb.ErrorInfo) *ErrorInfo {
	if m == nil {
		return nil
	}
	return &ErrorInfo{Type: m.GetType(), Message: m.GetMessage()}
}

func interrupt(m *pb.Interrupt) Interrupt {
	var schema json.RawMessage
	if m.GetResponseSchemaJson() != "" {
		schema = raw(m.GetResponseSchemaJson())
	}
	return Interrupt{InterruptID: m.GetInterruptId(), Node: m.GetNode(), TaskID: m.GetTaskId(), Value: raw(m.GetValueJson()), ResponseSchema: schema}
}

func interrupts(ms []*pb.Interrupt) []Interrupt {
	out := make([]Interrupt, 0, len(ms))
	for _, m := range ms {
		out = append(out, interrupt(m))
	}
	return out
}

func checkpointRef(m *pb.CheckpointRef) CheckpointRef {
	ref := CheckpointRef{
		CheckpointID: m.GetCheckpointId(),
		ParentID:     m.GetParentId(),
		Step:         int(m.GetStep()),
		Source:       m.GetSource(),
		Next:         append([]string{}, m.GetNext()...),
	}
	if m.GetCreatedAt() != nil {
		ref.CreatedAt = m.GetCreatedAt().AsTime()
	}
	return ref
}

func chunkText(chunk json.RawMessage) string {
	var shape struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(chunk, &shape) != nil {
		return ""
	}
	return contentText(shape.Content)
}

// event decodes one RunEvent; nil for a kind this client does not know (a newer server's).
func event(m *pb.RunEvent) Event {
	info := EventInfo{Seq: m.GetSeq(), RunID: m.GetRunId()}
	if ns := m.GetNamespace(); len(ns) > 0 {
		info.Namespace = append([]string{}, ns...)
	}
	switch e := m.GetEvent().(type) {
	case *pb.RunEvent_RunStarted:
		v := e.RunStarted
		if info.RunID == "" {
			info.RunID = v.GetRunId()
		}
		return &RunStarted{info, v.GetThreadId(), v.GetGraph(), v.GetCheckpointId()}
	case *pb.RunEvent_StepStarted:
		tasks := make([]TaskRef, 0, len(e.StepStarted.GetTasks()))
		for _, t := range e.StepStarted.GetTasks() {
			tasks = append(tasks, TaskRef{t.GetTaskId(), t.GetNode()})
		}
		return &StepStarted{info, int(e.StepStarted.GetStep()), tasks}
	case *pb.RunEvent_StepFinished:
		return &StepFinished{info, int(e.StepFinished.GetStep())}
	case *pb.RunEvent_TaskStarted:
		v := e.TaskStarted
		return &TaskStarted{info, int(v.GetStep()), v.GetTaskId(), v.GetNode(), raw(v.GetInputJson()), v.GetTriggers()}
	case *pb.RunEvent_TaskFinished:
		v := e.TaskFinished
		return &TaskFinished{info, int(v.GetStep()), v.GetTaskId(), v.GetNode(), raw(v.GetUpdateJson()),
			errorInfo(v.GetError()), interrupts(v.GetInterrupts()), v.GetCached()}
	case *pb.RunEvent_Values:
		return &ValuesEvent{info, int(e.Values.GetStep()), raw(e.Values.GetValuesJson())}
	case *pb.RunEvent_Custom:
		v := e.Custom
		return &CustomEvent{info, int(v.GetStep()), v.GetTaskId(), v.GetNode(), raw(v.GetPayloadJson())}
	case *pb.RunEvent_MessageChunk:
		v := e.MessageChunk
		chunk := raw(v.GetChunkJson())
		return &MessageChunk{info, int(v.GetStep()), v.GetTaskId(), v.GetNode(), chunk, raw(v.GetMetadataJson()), chunkText(chunk)}
	case *pb.RunEvent_CheckpointSaved:
		return &CheckpointSaved{info, checkpointRef(e.CheckpointSaved.GetCheckpoint())}
	case *pb.RunEvent_Interrupt:
		return &InterruptEvent{info, interrupt(e.Interrupt)}
	case *pb.RunEvent_RunFinished:
		v := e.RunFinished
		reason, ok := reasons[v.GetReason()]
		if !ok {
			reason = ReasonUnspecified
		}
		var ref *CheckpointRef
		if v.GetCheckpoint() != nil {
			r := checkpointRef(v.GetCheckpoint())
			ref = &r
		}
		return &RunFinished{info, reason, ref, raw(v.GetValuesJson()), errorInfo(v.GetError()), interrupts(v.GetInterrupts())}
	}
	return nil
}

func snapshot(m *pb.StateSnapshot) StateSnapshot {
	tasks := make([]TaskState, 0, len(m.GetTasks()))
	for _, t := range m.GetTasks() {
		var result json.RawMessage
		if t.ResultJson != nil {
			result = json.RawMessage(t.GetResultJson())
		}
		task := TaskState{TaskID: t.GetTaskId(), Node: t.GetNode(), Interrupts: interrupts(t.GetInterrupts()),
			Error: errorInfo(t.GetError()), Result: result, CheckpointNs: t.GetCheckpointNs()}
		if t.GetPathJson() != "" {
			task.Path = raw(t.GetPathJson())
		}
		if t.GetState() != nil {
			inner := snapshot(t.GetState())
			task.State = &inner
		}
		tasks = append(tasks, task)
	}
	return StateSnapshot{
		Values:     raw(m.GetValuesJson()),
		Next:       append([]string{}, m.GetNext()...),
		Checkpoint: checkpointRef(m.GetCheckpoint()),
		Metadata:   raw(m.GetMetadataJson()),
		Tasks:      tasks,
		Interrupts: interrupts(m.GetInterrupts()),
	}
}

func graphInfo(m *pb.GraphInfo) GraphInfo {
	info := GraphInfo{Name: m.GetName(), Description: m.GetDescription()}
	for _, n := range m.GetNodes() {
		node := GraphNode{Name: n.GetName(), Metadata: raw(n.GetMetadataJson())}
		if n.GetSubgraph() != nil {
			inner := graphInfo(n.GetSubgraph())
			node.Subgraph = &inner
		}
		info.Nodes = append(info.Nodes, node)
	}
	for _, e := range m.GetEdges() {
		info.Edges = append(info.Edges, GraphEdge{e.GetSource(), e.GetTarget(), e.GetConditional(), e.GetLabel()})
	}
	return info
}
