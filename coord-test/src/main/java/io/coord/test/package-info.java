/**
 * Test support for code built on Coord: a real ZooKeeper on loopback for JUnit 5, the fault
 * catalogue of RELIABILITY.md, and history checks.
 *
 * <ul>
 *   <li>{@link io.coord.test.ZooKeeperExtension}: one server or a quorum of three per test class,
 *       a fresh namespace per test, clients closed after each test, leak checks
 *       ({@link io.coord.test.LeakCheckExtension}).
 *   <li>{@link io.coord.test.EmbeddedEnsemble}: the servers themselves (1, 3 or 5, in this JVM).
 *   <li>Faults: {@link io.coord.test.Faults} (session expiry server- or client-side, connection
 *       drop, spurious events, leader kill, quorum loss), {@link io.coord.test.ClientProxy} (cut,
 *       black hole, refuse), {@link io.coord.test.ChildJvm} (SIGSTOP, kill -9 of a client process),
 *       {@link io.coord.test.ForkedEnsemble} (SIGSTOP of a server, partitions between servers),
 *       {@link io.coord.test.ReplyLossServer} (create applied, reply lost),
 *       {@link io.coord.test.SteppedTicker} (a process stall a client sees on its ticker).
 *   <li>Checks: {@link io.coord.test.History} (invoke/ok/fail/info, counter and set checks,
 *       throughput around fault windows), {@link io.coord.test.Violations} and
 *       {@link io.coord.test.GuardedResource} for fenced and unfenced control runs.
 *   <li>{@link io.coord.test.Awaits}: bounded waits, stretched by {@code -Dcoord.test.timing}.
 *   <li>{@link io.coord.test.LeaseContract}: the one contract of every lease handle, extended
 *       once per handle kind by the recipe modules' tests.
 * </ul>
 */
package io.coord.test;
