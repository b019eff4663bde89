package graphwire

import "encoding/json"

// Message is a chat message as graphwire sends it. A graph that keeps
// LangChain messages (the server's langchain extra) sends LangChain's dict
// form: Type ("human", "ai", "system", "tool", …), Content, ID, ToolCalls, …;
// a graph of plain dict messages sends what it keeps, usually Role and
// Content. Either form is accepted as input. Decode a state's "messages"
// into []Message and read it with Speaker and Text, whichever form it is.
type Message struct {
	Type       string          `json:"type,omitempty"`
	Role       string          `json:"role,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"`
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// ToolCall is a tool call an assistant message asks for.
type ToolCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

var speakers = map[string]string{
	"human": "user", "HumanMessageChunk": "user",
	"ai": "assistant", "AIMessageChunk": "assistant",
	"system": "system", "SystemMessageChunk": "system",
	"tool": "tool", "ToolMessageChunk": "tool",
	"function": "function", "FunctionMessageChunk": "function",
	"remove": "remove",
}

// Speaker is "user", "assistant", "system", "tool", …: the Role, or what
// LangChain's Type means; "" when the message has neither.
func (m Message) Speaker() string {
	if m.Role != "" {
		return m.Role
	}
	return speakers[m.Type]
}

// Text is the content as text: a string, or the text parts of content blocks joined.
func (m Message) Text() string { return contentText(m.Content) }

// UserMessage is a user's message to send as input.
func UserMessage(text string) Message {
	content, _ := json.Marshal(text)
	return Message{Role: "user", Content: content}
}

func contentText(content json.RawMessage) string {
	if content == nil {
		return ""
	}
	var text string
	if json.Unmarshal(content, &text) == nil {
		return text
	}
	var parts []json.RawMessage
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	for _, raw := range parts {
		var part struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text += s
		} else if json.Unmarshal(raw, &part) == nil && part.Text != "" && (part.Type == "text" || part.Type == "") {
			text += part.Text
		}
	}
	return text
}
