/**
 * Fair reentrant lock, read-write lock and semaphore over ZooKeeper — fenced, loss-aware and
 * inspectable. Entry point: {@link io.coord.lock.Locks}.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Mutual exclusion under fencing.</b> At most one lock (or write) lease is ACQUIRED per
 *       lock at any time as far as the lease state machine knows; and because a process can be
 *       paused past its session without knowing it, every lease carries a
 *       {@link io.coord.FencingToken}: the czxid of its node, taken from the create itself.
 *       Tokens strictly increase in grant order, also after the lock's parent node was deleted
 *       and re-created (sequence suffixes restart then; zxids never do) and across leader changes.
 *       Writes into ZooKeeper through {@link io.coord.Lease#guardedSetData} commit only while the
 *       lease's node exists; writes elsewhere are fenced by a {@link io.coord.fence.FenceGuard}.
 *   <li><b>Fair.</b> Waiters are granted in the order their nodes were created. A release wakes
 *       only the next waiter (each waiter watches one node; a semaphore admits one client at a
 *       time through its gate, and only that client watches the leases) — no herd.
 *   <li><b>Bounded, clean waits.</b> Every wait has a bound or ends on interrupt (one exception,
 *       by j.u.c's contract: the {@code Lock} view's {@code lock()}, which waits until granted or
 *       failed); a waiter that gives up removes its own node before returning.
 *   <li><b>Handles own leases.</b> {@link io.coord.lock.LockLease} may be closed from any thread;
 *       nesting is explicit ({@link io.coord.lock.LockLease#reenter()}). The Curator view
 *       ({@link io.coord.lock.DistributedLock#asInterProcessLock()}, a
 *       {@link io.coord.lock.CuratorLock}) is thread-owned and reentrant per thread, like
 *       InterProcessMutex, and answers its {@code getParticipantNodes()} and
 *       {@code isOwnedByCurrentThread()}. The read-write lock's
 *       ({@link io.coord.lock.ReadWriteLock#asInterProcessReadWriteLock()}, a
 *       {@link io.coord.lock.CuratorReadWriteLock}) has two such halves, as
 *       InterProcessReadWriteLock has, each listing its own half's nodes; it refuses a
 *       read-to-write upgrade with {@link IllegalStateException} where Curator's waits forever.
 *       The {@link java.util.concurrent.locks.Lock} view ({@link io.coord.lock.DistributedLock#asLock()},
 *       a {@link io.coord.lock.JucLock}, on the mutex and on either read-write half) shares the
 *       Curator view's per-thread holds and follows {@code ReentrantLock}'s interrupt rules:
 *       {@code lock()} keeps waiting through an interrupt (queueing again) and sets the flag again
 *       once it holds; {@code unlock()} of a LOST hold does not throw; {@code newCondition()} is
 *       refused. Both views give each hold's token and loss signal through
 *       {@code heldByCurrentThread()}.
 * </ul>
 *
 * <h2>Nodes</h2>
 * <pre>
 * /locks/{domain}/{resource}                    container (the lock path; any path works)
 *     _c_{uuid}-lock-0000000007                 mutex node: ephemeral, sequential, protected
 *     _c_{uuid}-__WRIT__0000000008 / -__READ__… read-write lock nodes, one queue
 *     _c_{uuid}-__READ__0000000008              read taken under write 8 (downgrade): not
 *                                               sequential, named with the write's sequence, so
 *                                               it queues at 8
 *
 * /locks/{domain}/{resource}                    a semaphore's path; holds {"permits":N}, recorded
 *                                               by the first acquire, compared by every later one
 *     locks/_c_{uuid}-lock-0000000003           the gate, a mutex: its holder creates its lease and
 *                                               waits (holding the gate) until there is room
 *     leases/_c_{uuid}-lease-0000000009         one per lease; the first N hold
 * </pre>
 * Each node holds JSON for inspection: host, pid, owner (thread or given name), kind, permits,
 * and — once held for a second — the grant time.
 *
 * <h2>Beside Curator on one path</h2>
 * The mutex and read-write lock nodes are named, ordered and decided exactly as Curator 5.9's
 * {@code InterProcessMutex} and {@code InterProcessReadWriteLock} do ({@code lock-},
 * {@code __WRIT__}, {@code __READ__}; a read under a write carries the write's sequence, as
 * Curator's does), and the semaphore follows {@code InterProcessSemaphoreV2}'s protocol and layout
 * (the {@code locks/} gate, {@code leases/}), so a fleet mixing both libraries on one path
 * excludes correctly (a semaphore: never more than its permits) throughout a rolling deploy
 * (docs/MIGRATING.md). Curator's V2 does not compare permit counts; Coord's clients do, among
 * themselves. A child of a lock's path that is no node of its kind — a typo'd child, another
 * tool's node, another kind of lock, Coord's earlier read-write layout ({@code read-}/{@code write-})
 * or semaphore layout ({@code lease-} nodes directly under the path) — is never ignored: every
 * acquire fails with {@link io.coord.ForeignNodesException} naming the path and the nodes (our
 * node removed), and {@link io.coord.lock.Locks#inspect} lists them in
 * {@link io.coord.lock.LockInfo#foreign()}. The Curator-shaped views:
 * {@link io.coord.lock.DistributedLock#asInterProcessLock()},
 * {@link io.coord.lock.ReadWriteLock#asInterProcessReadWriteLock()} and
 * {@link io.coord.lock.Semaphore#asCuratorSemaphore()}.
 *
 * <h2>Failure semantics</h2>
 * <ul>
 *   <li><b>SUSPENDED</b> (connection lost, session maybe alive) or a <b>process stall</b> longer
 *       than the client's stall fraction of the session timeout: held leases become UNCERTAIN —
 *       {@code checkValid()} and guarded writes throw {@link io.coord.LockLostException} — until
 *       one round trip on the same session finds the node again (ACQUIRED, same token). Waiters
 *       keep waiting: their watch survives a reconnect on the same session.
 *   <li><b>LOST</b> (session expired or replaced, or the node deleted by someone else): final.
 *       Listeners get {@code onLost} on their executor; the holder must stop protected work and
 *       acquire again, which yields a higher token. A waiter whose session ends fails with
 *       {@link io.coord.SessionExpiredException}; a waiter in a thread-owned view (Curator's or
 *       the {@code Lock}) queues again on the new session while the client's retry policy allows,
 *       and fails so, naming the lock, when it gives up or the client is closed.
 *   <li><b>Interrupt</b> while waiting: the node is removed and {@link InterruptedException}
 *       thrown (the {@code Lock} view's {@code lock()} and {@code tryLock()} excepted: they go on,
 *       as j.u.c requires). Held leases are not affected by interrupts.
 *   <li><b>Bounds.</b> An acquire's timeout bounds the wait in the queue; one request made while
 *       the connection is down (the create, a read) may take up to the client's retry budget.
 * </ul>
 *
 * <h2>Round trips</h2>
 * An uncontended cycle costs the caller one round trip: the acquire sends its create and its read
 * of the queue back to back on one session (ZooKeeper answers them in order, so the read already
 * lists our node; a blocking acquire is woken by the read's reply itself), and {@link io.coord.lock.LockLease#close()} returns once the delete is sent (the
 * lease is RELEASED at once; the delete is guaranteed, and the session's next requests come after
 * it; what others may still see is in docs/FENCING.md, "After close() returns").
 *
 * <h2>Async acquire</h2>
 * {@link io.coord.lock.DistributedLock#acquireAsync(java.time.Duration, java.util.concurrent.Executor)}
 * returns a {@code CompletableFuture<LockLease>} at once. No thread is parked while it waits (the
 * wait is a watch on the node ahead, each step sent from the reply or event before it); the future
 * completes on the given executor (the one-argument overload: CompletableFuture's default async
 * executor), never on a ZooKeeper or Coord event thread. Its failure semantics:
 * <ul>
 *   <li><b>SUSPENDED</b>: the wait goes on (the watch survives a reconnect on the same session).
 *   <li><b>Session ended</b> (or the client closed) while waiting: completes exceptionally with
 *       {@link io.coord.SessionExpiredException}; the node went with the session (or was deleted by
 *       the close, when a wrapped Curator client keeps the session). It does not queue again on a
 *       new session.
 *   <li><b>Timeout</b> (nanoTime-based, from the call): {@link io.coord.CoordTimeoutException};
 *       our node is deleted.
 *   <li><b>Cancel</b> ({@code cancel()} or completing the future yourself): our node is deleted, or,
 *       if its create is still in flight, deleted when the reply comes; a grant that races the
 *       cancel is released at once. No node is left behind.
 *   <li><b>Other failures</b> as the blocking acquire throws them ({@link io.coord.ForeignNodesException},
 *       {@link io.coord.TooManyChildrenException}, {@link io.coord.LockLostException} when our node was
 *       deleted by someone else), our node removed. An executor that refuses the completion: the
 *       lease is released and the future fails with {@link java.util.concurrent.RejectedExecutionException}.
 *   <li>The lease it yields is like any other: UNCERTAIN and LOST as above, closed from any thread.
 *       It belongs to no thread (no reentrancy through the thread-owned views; a read-write half's
 *       async read is never anchored to this thread's write).
 * </ul>
 *
 * <h2>Why not Curator's LockInternals directly</h2>
 * The protocol is Curator's (protected ephemeral-sequential nodes, a {@code getData} watch on one
 * predecessor, guaranteed deletes, and — like Curator 5.9's read-write lock — a read under a held
 * write queued at the write's place). Its class is not reused because it waits with wall-clock
 * deadlines, ties holds to threads, has no place for the create's czxid or the per-lease state
 * machine, and re-reads the children on every wake-up; Coord grants a lock or read waiter whose
 * last node ahead went without that read (nothing can queue ahead of it later), which is what
 * pays for the lease's own-node watch.
 */
package io.coord.lock;
