/**
 * The chaos suite: multi-process fault scenarios with invariant checks (RELIABILITY.md, "Lessons
 * for our harness" and "Matrix"). A controller ({@link io.coord.chaos.ChaosSuite}) runs a forked
 * 3-server ZooKeeper ensemble and worker JVMs ({@link io.coord.chaos.ChaosWorker}) behind loopback
 * proxies, applies a seeded fault schedule, records the history and checks each scenario's
 * invariants. See HARNESS.md in the module for how to add a scenario.
 */
package io.coord.chaos;
