// Package graphwiretest starts a real graphwire server for a test.
//
//	srv := graphwiretest.Start(t)
//	client, err := graphwire.Dial(srv.Address)
//
// The server is `python -m server serve` from the graphwire repository
// (GRAPHWIRE_REPO, else the nearest directory above the working directory
// that holds proto/graphwire), run by GRAPHWIRE_PYTHON (default python3), on
// 127.0.0.1 port 0 with SQLite in the test's temporary directory. Start
// returns once the server prints the address it listens on; the server is
// stopped (SIGTERM) when the test ends.
package graphwiretest

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StartDeadline bounds how long the server may take to start.
const StartDeadline = 60 * time.Second

// Server is a running graphwire server.
type Server struct {
	Address string // host:port it listens on
	cmd     *exec.Cmd
}

// Repo is the graphwire repository the server runs from.
func Repo() (string, error) {
	if dir := os.Getenv("GRAPHWIRE_REPO"); dir != "" {
		return dir, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for {
		if info, err := os.Stat(filepath.Join(dir, "proto", "graphwire")); err == nil && info.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("graphwiretest: no graphwire repository above the working directory; set GRAPHWIRE_REPO")
		}
		dir = parent
	}
}

// Start starts a server with the given extra flags (e.g. "--graph",
// "name=module:attr"); the default serves the reminders demo.
func Start(tb testing.TB, args ...string) *Server {
	tb.Helper()
	repo, err := Repo()
	if err != nil {
		tb.Fatal(err)
	}
	python := os.Getenv("GRAPHWIRE_PYTHON")
	if python == "" {
		python = "python3"
	}
	db := filepath.Join(tb.TempDir(), "gw.db")
	full := append([]string{"-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", db, "--grace", "2"}, args...)
	cmd := exec.Command(python, full...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1", "GRAPHWIRE_FORECAST_DELAY=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("graphwiretest: starting %s: %v", python, err)
	}
	srv := &Server{cmd: cmd}
	tb.Cleanup(srv.stop)

	lines := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if line := scanner.Text(); strings.HasPrefix(line, "graphwire listening on ") {
				lines <- strings.TrimPrefix(line, "graphwire listening on ")
				break
			}
		}
		close(lines)
		for scanner.Scan() { // keep draining, so the server never blocks on a full pipe
		}
	}()
	select {
	case address, ok := <-lines:
		if !ok {
			_ = cmd.Wait()
			tb.Fatalf("graphwiretest: the server exited before listening:\n%s", stderr.String())
		}
		srv.Address = address
	case <-time.After(StartDeadline):
		tb.Fatalf("graphwiretest: the server printed no address within %s:\n%s", StartDeadline, stderr.String())
	}
	return srv
}

func (s *Server) stop() {
	if s.cmd.Process == nil || s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}
