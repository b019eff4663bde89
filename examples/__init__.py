"""Example graphs used by the demo server, the tests, the benchmarks and the docs."""
