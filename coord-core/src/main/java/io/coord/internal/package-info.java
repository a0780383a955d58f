/**
 * Not API. Helpers shared by Coord's recipe modules (the lease state machine, listener dispatch,
 * error translation, node-lease plumbing, {@link io.coord.internal.WakeSignal}: the one way a
 * lock, election or barrier waiter waits for a node, lease or session change). Public only so that recipe modules in other packages
 * can use them; anything here may change without notice.
 *
 * <h2>Who may use it, and what enforces that</h2>
 * Only coord-core itself and the recipe modules (lock, election, membership, naming, queue,
 * barrier, config) may refer to this package; coord-test, coord-chaos, coord-cli and coord-bench use
 * the public API like any user. No public type outside this package may name a type of it in its
 * public surface (a supertype, a public or protected member's signature): a recipe's public handle
 * is an interface with a package-private implementation, which may extend
 * {@link io.coord.internal.ForwardingLease}.
 *
 * <p>A {@code module-info.java} exporting this package only to the recipe modules would say this
 * to the compiler, but it cannot be written with ZooKeeper 3.9.5: its {@code zookeeper} and
 * {@code zookeeper-jute} jars both contain {@code org.apache.zookeeper.server.persistence} and
 * {@code org.apache.zookeeper.server.quorum}, and neither they nor Curator 5.9's jars name an
 * automatic module. A named module that {@code requires zookeeper} and {@code curator.framework}
 * fails to compile ("module curator.framework reads package org.apache.zookeeper.server.quorum
 * from both zookeeper and zookeeper.jute"), so a named Coord module could not read its own
 * dependencies. Instead:
 * <ul>
 *   <li>coord-cli's {@code InternalsBoundaryTest} fails the build when a class of another module
 *       refers to this package (read from every class file's constant pool) or a public type
 *       exposes it;</li>
 *   <li>every Coord jar carries a stable {@code Automatic-Module-Name} ({@code io.coord.core},
 *       {@code io.coord.lock}, ...), so applications on the module path can require Coord by a
 *       name that will not change when real module descriptors become possible.</li>
 * </ul>
 *
 * <p>Each {@link io.coord.CoordClient} owns its {@link io.coord.internal.Zk};
 * {@link io.coord.internal.Zk#of} reads it from the client (no process-global map of clients) and
 * fails naming the client once it is closed.
 */
package io.coord.internal;
