package graphwire_test

import (
	"encoding/json"
	"testing"

	"graphwire"
)

func TestMessagesInEitherForm(t *testing.T) {
	var messages []graphwire.Message
	wire := `[
		{"content": "hi", "type": "human", "id": "1", "name": null, "additional_kwargs": {}},
		{"role": "assistant", "content": "hello"},
		{"type": "ai", "content": [{"type": "text", "text": "two "}, "parts"], "tool_calls": [{"id": "c1", "name": "forecast", "args": {"city": "Oslo"}}]},
		{"type": "tool", "content": "sunny", "tool_call_id": "c1"}
	]`
	if err := json.Unmarshal([]byte(wire), &messages); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"user", "hi"}, {"assistant", "hello"}, {"assistant", "two parts"}, {"tool", "sunny"}}
	for i, m := range messages {
		if got := [2]string{m.Speaker(), m.Text()}; got != want[i] {
			t.Errorf("message %d: %v, want %v", i, got, want[i])
		}
	}
	if messages[2].ToolCalls[0].Name != "forecast" || messages[3].ToolCallID != "c1" {
		t.Errorf("tool calls: %+v", messages[2:])
	}
	sent, _ := json.Marshal(graphwire.UserMessage("remind me"))
	if string(sent) != `{"role":"user","content":"remind me"}` {
		t.Errorf("UserMessage: %s", sent)
	}
}
