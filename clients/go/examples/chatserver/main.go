// Command chatserver is a chat server in Go on graphwire: one thread per
// user, the reply streamed as server-sent events, the agent's questions
// answered, a reply regenerated.
//
//	graphwire serve                                   # the reminders demo, in another terminal
//	go run graphwire/examples/chatserver -addr 127.0.0.1:8000
//	curl -N -X POST --data 'remind me to call mom at 5pm' 'http://127.0.0.1:8000/chat?user=ana'
//	curl -N -X POST --data 'yes' 'http://127.0.0.1:8000/answer?user=ana'
//
// See chat.go for the endpoints.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"graphwire"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "where this chat server listens")
	server := flag.String("graphwire", "127.0.0.1:50051", "the graphwire server")
	graph := flag.String("graph", "reminders", "the graph each user's thread runs")
	flag.Parse()
	client, err := graphwire.Dial(*server, graphwire.WithToken(os.Getenv("GRAPHWIRE_AUTH_TOKEN")))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	log.Printf("chat server on http://%s (graphwire at %s, graph %s)", *addr, *server, *graph)
	log.Fatal(http.ListenAndServe(*addr, (&Chat{Client: client, Graph: *graph}).Handler()))
}
