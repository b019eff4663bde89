package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"graphwire"
	"graphwire/graphwiretest"
)

type sse struct{ name, data string }

func post(t *testing.T, base, path, body string) (int, []sse) {
	t.Helper()
	res, err := http.Post(base+path, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var events []sse
	var current sse
	scanner := bufio.NewScanner(res.Body)
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			current.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			current.data = strings.TrimPrefix(line, "data: ")
		case line == "" && current.name != "":
			events = append(events, current)
			current = sse{}
		}
	}
	return res.StatusCode, events
}

func reply(events []sse) (text string, question string, done string) {
	for _, e := range events {
		var s string
		switch e.name {
		case "token":
			_ = json.Unmarshal([]byte(e.data), &s)
			text += s
		case "question":
			_ = json.Unmarshal([]byte(e.data), &question)
		case "done":
			done = e.data
		}
	}
	return
}

func TestAChatWithAQuestionAndARegenerate(t *testing.T) {
	srv := graphwiretest.Start(t)
	client, err := graphwire.Dial(srv.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	web := httptest.NewServer((&Chat{Client: client, Graph: "reminders"}).Handler())
	defer web.Close()

	status, events := post(t, web.URL, "/chat?user=ana", "remind me to call mom at 5pm")
	_, question, done := reply(events)
	if status != http.StatusOK || question != "Add a reminder to call mom at 5pm?" || done != `{"reason":"INTERRUPT"}` {
		t.Fatalf("chat: %d %v", status, events)
	}
	status, events = post(t, web.URL, "/answer?user=ana", "yes")
	text, _, done := reply(events)
	if status != http.StatusOK || text != "Done: I'll remind you to call mom at 5pm." || done != `{"reason":"END"}` {
		t.Fatalf("answer: %d %q %v", status, text, events)
	}
	status, events = post(t, web.URL, "/regenerate?user=ana", "")
	if again, _, _ := reply(events); status != http.StatusOK || again != text {
		t.Fatalf("regenerate: %d %v", status, events)
	}

	res, err := http.Get(web.URL + "/conversation?user=ana")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var conv struct {
		Messages []shown `json:"messages"`
		Question *string `json:"question"`
	}
	if err := json.Unmarshal(body, &conv); err != nil || conv.Question != nil || len(conv.Messages) != 2 ||
		conv.Messages[1].Content != text || conv.Messages[0].Role != "user" || conv.Messages[1].Role != "assistant" {
		t.Fatalf("conversation: %s", body)
	}

	if status, _ := post(t, web.URL, "/answer?user=ana", "yes"); status != http.StatusConflict {
		t.Fatalf("an answer with no question pending: %d, want 409", status)
	}
	if status, _ := post(t, web.URL, "/regenerate?user=bob", ""); status != http.StatusConflict {
		t.Fatalf("regenerate for a new user: %d", status)
	}
}
