package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"graphwire"
)

// Chat serves one graphwire thread per user (the user query parameter):
//
//	POST /chat?user=U          body: the user's message   → server-sent events
//	POST /answer?user=U        body: the answer to the agent's question → server-sent events
//	POST /regenerate?user=U    the last reply, written again → server-sent events
//	GET  /conversation?user=U  {"messages": [{role, content}], "question": "…" or null}
//
// The events: "token" (a piece of the reply, as a JSON string), "question"
// (the agent asks; answer it with /answer), "done" ({"reason": "END"}). A
// client that disconnects cancels its run.
type Chat struct {
	Client *graphwire.Client
	Graph  string
}

// shown is a message the user reads: theirs and the assistant's replies (not tool calls or results).
type shown struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatState struct {
	Messages []graphwire.Message `json:"messages"`
}

// Handler routes the endpoints above.
func (c *Chat) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/chat", c.post(func(ctx context.Context, user, text string) (*graphwire.Run, error) {
		input := chatState{Messages: []graphwire.Message{graphwire.UserMessage(text)}}
		return c.Client.Invoke(ctx, c.Graph, user, input, streamed...)
	}))
	mux.HandleFunc("/answer", c.post(func(ctx context.Context, user, text string) (*graphwire.Run, error) {
		return c.Client.Resume(ctx, c.Graph, user, text, streamed...)
	}))
	mux.HandleFunc("/regenerate", c.post(c.regenerate))
	mux.HandleFunc("/conversation", c.conversation)
	return mux
}

// The events a chat needs: the reply's chunks and the agent's questions.
var streamed = []graphwire.RunOption{graphwire.WithEventKinds(graphwire.KindMessageChunk, graphwire.KindInterrupt)}

// regenerate runs the thread again from the version that wrote the last reply.
func (c *Chat) regenerate(ctx context.Context, user, _ string) (*graphwire.Run, error) {
	history, err := c.Client.History(ctx, c.Graph, user, graphwire.HistoryOptions{})
	if err != nil {
		return nil, err
	}
	for _, version := range history { // newest first
		if len(version.Next) == 1 && version.Next[0] == "model" {
			return c.Client.Fork(ctx, c.Graph, user, version.Checkpoint.CheckpointID, streamed...)
		}
	}
	return nil, &httpError{http.StatusConflict, "there is no reply to regenerate"}
}

func (c *Chat) post(start func(ctx context.Context, user, text string) (*graphwire.Run, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user := r.URL.Query().Get("user")
		if r.Method != http.MethodPost || user == "" {
			http.Error(w, "POST, with ?user=", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		run, err := start(r.Context(), user, string(body)) // the request's context: a hang-up cancels the run
		if err != nil {
			fail(w, err)
			return
		}
		defer run.Close()
		if !run.Next() { // the first event, or why there is none (a busy thread, nothing to answer, ...)
			fail(w, run.Err())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		flusher, _ := w.(http.Flusher)
		send := func(name string, data any) {
			b, _ := json.Marshal(data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
			if flusher != nil {
				flusher.Flush()
			}
		}
		for ok := true; ok; ok = run.Next() {
			switch e := run.Event().(type) {
			case *graphwire.MessageChunk:
				send("token", e.Text)
			case *graphwire.InterruptEvent:
				var question any
				_ = json.Unmarshal(e.Value, &question)
				send("question", question)
			case *graphwire.RunFinished:
				send("done", map[string]string{"reason": string(e.Reason)})
			}
		}
		if err := run.Err(); err != nil {
			send("error", err.Error())
		}
	}
}

func (c *Chat) conversation(w http.ResponseWriter, r *http.Request) {
	user := r.URL.Query().Get("user")
	out := struct {
		Messages []shown `json:"messages"`
		Question any     `json:"question"`
	}{Messages: []shown{}}
	state, err := c.Client.GetState(r.Context(), c.Graph, user, "")
	switch {
	case errors.Is(err, graphwire.ErrNotFound): // a new user: no thread yet
	case err != nil:
		fail(w, err)
		return
	default:
		var values chatState
		if err := state.DecodeValues(&values); err != nil {
			fail(w, err)
			return
		}
		for _, m := range values.Messages {
			if role := m.Speaker(); (role == "user" || role == "assistant") && m.Text() != "" {
				out.Messages = append(out.Messages, shown{Role: role, Content: m.Text()})
			}
		}
		if len(state.Interrupts) > 0 {
			_ = json.Unmarshal(state.Interrupts[0].Value, &out.Question)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

type httpError struct {
	status  int
	message string
}

func (e *httpError) Error() string { return e.message }

// fail answers with the HTTP status that fits a graphwire error.
func fail(w http.ResponseWriter, err error) {
	var h *httpError
	switch {
	case errors.As(err, &h):
		http.Error(w, h.message, h.status)
	case errors.Is(err, graphwire.ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
	case errors.Is(err, graphwire.ErrInvalidArgument):
		http.Error(w, err.Error(), http.StatusBadRequest)
	case errors.Is(err, graphwire.ErrFailedPrecondition), errors.Is(err, graphwire.ErrAborted):
		http.Error(w, err.Error(), http.StatusConflict)
	default:
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
}
