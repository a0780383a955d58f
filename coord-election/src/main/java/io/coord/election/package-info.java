/**
 * Leader election with fencing epochs, a clean handover, and observers.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>One leader at a time, by epoch.</b> A candidate leads only while it is the lowest
 *       candidate node. Its {@link io.coord.election.Leadership#epoch() epoch} is the czxid of that
 *       node: every later leader has a strictly greater epoch (zxids never go back, also across
 *       re-creation of the election node), and each epoch belongs to exactly one candidate. With
 *       Curator candidates in the election, a Coord leader's epoch still rises across every
 *       handover; the Curator leaders in between have none (a FenceGuard sees nothing from them).
 *   <li><b>No acting before the handover.</b> A newly elected leader does not start until the
 *       previous leader's node is gone and the
 *       {@linkplain io.coord.election.ElectionOptions#handoverGrace() handover grace} (default 0)
 *       has passed, and only while its own lease is certain (ACQUIRED, session connected).
 *   <li><b>An old leader stops first.</b> A leader cut off from ZooKeeper becomes UNCERTAIN when
 *       the connection is SUSPENDED (about 2/3 of the session timeout without contact), before the
 *       server expires its session (the full timeout) and deletes its node: its task is
 *       interrupted before the next leader can be elected. What slips past (a paused process, a
 *       server-side kill of the session) is stopped by fencing with the epoch.
 *   <li><b>No herd.</b> Each candidate watches only the node just ahead of it (getData watch):
 *       a leader leaving wakes one candidate.
 * </ul>
 *
 * <h2>Nodes</h2>
 * <pre>
 * /elections/{name}                                   container (deleted by the server when empty);
 *     data: the last Coord leader that started acting, {"epoch":&lt;czxid&gt;,"participant":"…"}
 * /elections/{name}/_c_{uuid}-latch-{seq10}           ephemeral-sequential, protected; JSON
 *     {"participant":"…","metadata":{…}}, written once, never changed
 *     (-lock- instead of -latch- with curatorLayout(SELECTOR))
 * </pre>
 * The candidates use the node layout of one Curator 5.9 recipe
 * ({@link io.coord.election.ElectionOptions#curatorLayout() curatorLayout}): {@code LeaderLatch}'s
 * {@code latch-} (the default) or {@code LeaderSelector}'s {@code lock-} (an
 * {@code InterProcessMutex}). Curator's candidates of that recipe ({@code _c_{uuid}-latch-{seq}},
 * data = the bare participant id) are candidates like Coord's: all are ordered by Curator's rule
 * (the 10-digit sequence after the last occurrence of the name), the lowest leads, and each
 * candidate watches only the one just ahead of it, which may be a Curator one. So a fleet half on
 * Curator and half on Coord has one leader at a time (a rolling deploy; see docs/MIGRATING.md).
 * Observers report a Curator leader by its id ({@link io.coord.election.LeaderInfo#curator()}),
 * never as acting (it does not announce) and with no epoch: its node's czxid orders it, but it
 * fences nothing.
 * <p>
 * Any other child (the other layout's, Coord's own {@code candidate-} nodes from before it took
 * Curator's layouts, anything unknown) follows a rule Coord cannot see: a campaign refuses with
 * {@link io.coord.ForeignNodesException} (naming the election, the nodes and what to do) before
 * creating its node, a waiting candidate removes its node and fails the same way, observers WARN
 * once per set of such nodes, and a leader that sees one appear steps down: its leadership ends
 * LOST with that exception as cause, its node is deleted, and {@code lead} does not join again
 * while they are there (it looks each second). <b>The window:</b> from the foreign node's creation
 * until the leader's children watch fires and its task is interrupted (one round trip), a Curator
 * client of the other layout, which thinks its own lowest node leads, and the Coord leader may
 * both act. A Coord candidate that the step-down elects (it was waiting for that leader only, so
 * it takes over without reading the children) may lead for one more round trip, until its own
 * first read of the children, then steps down the same way. Do not mix layouts; fencing with the
 * epoch covers what reaches a FenceGuard.
 * The lowest sequence leads. A new Coord leader, once it acts, writes its epoch on the election
 * node ({@code multi(check(ownNode), setData(election))}, in the background); observers show a
 * leader as acting when that epoch is its own, since that write's mtime. The announcement lives
 * on the election node, not on the leader's, so that it does not wake the candidate watching the
 * leader.
 *
 * <h2>Curator-shaped listeners</h2>
 * {@link io.coord.election.Election#lead(org.apache.curator.framework.recipes.leader.LeaderLatchListener,
 * java.util.concurrent.Executor)} and its {@code LeaderSelectorListener} sibling run Curator's
 * listeners on the caller's executor over Coord's runner; the epoch and the loss signal are on
 * the returned {@link io.coord.election.LeaderRegistration#leadership()}.
 *
 * <h2>Failure semantics</h2>
 * <ul>
 *   <li><b>SUSPENDED</b> (or a process stall): the leadership is UNCERTAIN at once;
 *       {@code checkValid()} throws; a leader task is interrupted. Restored (ACQUIRED, same epoch)
 *       only if the same session reconnects and the node is still there; a leader task then runs
 *       again. A waiting candidate keeps its place; if elected meanwhile it waits for the restore.
 *   <li><b>LOST</b> (session expired, node deleted): final; the leader task is interrupted;
 *       guarded writes fail with {@link io.coord.LockLostException}. With
 *       {@linkplain io.coord.election.ElectionOptions#requeue() requeue} the candidate joins again
 *       on the new session, with a new epoch.
 *   <li><b>Interrupt</b>: a blocking {@code campaign} withdraws its candidacy and throws
 *       {@link java.lang.InterruptedException}; a leader task is interrupted to end a leadership.
 *   <li><b>resign / close</b>: deletes exactly our node (guaranteed delete); the next candidate is
 *       woken at once. Closing the election stops the task first (bounded), then resigns.
 * </ul>
 *
 * <h2>Metrics</h2> (tag {@code election}) {@code coord.election.changes} (this process started
 * leading), {@code coord.election.handover} (from the previous leader's node gone to acting),
 * {@code coord.election.held}, {@code coord.election.lost}, {@code coord.election.wakeups}
 * (predecessor watches fired), {@code coord.election.task.failures}; observers:
 * {@code coord.election.observed.changes} and {@code coord.election.leaderless} (time without an
 * acting leader).
 */
package io.coord.election;
