/**
 * Coord's benchmark harness: each benchmark runs our code path and its plain-Curator or
 * raw-ZooKeeper peer against the same embedded server in the same run, alternating rounds so
 * that machine noise hits both sides alike, and reports medians with the ratio ours/peer.
 *
 * <p>Timing claims live here, never in unit tests. A benchmark is a {@link io.coord.bench.Benchmark}
 * listed in {@link io.coord.bench.Benchmarks}; it returns {@link io.coord.bench.Figure}s, which
 * {@link io.coord.bench.BenchMain} prints as a table and appends as JSON lines to
 * {@code coord-bench/target/bench/results.jsonl}.
 *
 * <p>The {@code limits.*} benchmarks measure the physical limits every recipe is measured
 * against: synchronous create+delete, the lock's create, list and delete pipelined against sent in
 * turn ({@code limits.lockCycle}: the most pipelining can win on this server), pipelined
 * asynchronous creates, and the getData round trip.
 *
 * <p>{@code coord bench --scale} runs the scale curves instead: per recipe ({@code lock},
 * {@code election}, {@code membership}, {@code discovery}, {@code config}, {@code barrier}), its
 * benchmark at growing sizes (set through system properties such as
 * {@code coord.bench.lock.waiters}), every participant its own client; it writes one Markdown table
 * per recipe between that recipe's markers in {@code docs/BENCHMARKS.md} and one SVG plot to
 * {@code docs/img/scale-NAME.svg}.
 */
package io.coord.bench;
