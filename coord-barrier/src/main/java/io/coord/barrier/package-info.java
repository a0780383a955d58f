/**
 * Barriers: a {@link io.coord.barrier.DoubleBarrier} (members start a phase together and finish it
 * together) that never lets anyone through early and never hangs silently, and a simple
 * {@link io.coord.barrier.Gate} (set / remove / await).
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>All or nothing.</b> {@code enter} returns only after all parties entered,
 *       {@code leave} only after all left. Each phase of each generation is decided once, by one
 *       ZooKeeper transaction that compare-and-sets the barrier's root record: the member whose
 *       arrival completes the count records READY (in the same transaction as its seat when it
 *       can), and any member that sees a failure records BROKEN;
 *       only one of the two can commit. Every waiter returns according to the recorded decision:
 *       it reads it again after every wake-up and every reconnect, with one exception, a server
 *       fact (issue 18). Each generation has a {@code decision} node, made with it and changed
 *       only by its decision: the transaction that records READY sets its data (its first
 *       operation, so its event goes out first), a break during {@code enter} deletes it, and a
 *       generation's number is never reused. A waiter in {@code enter} holds one watch, an
 *       exists-watch on that node (one watch event per waiter per round, as Curator's): a
 *       {@code NodeDataChanged} event for exactly this generation's {@code decision} path,
 *       carrying the server's zxid, says READY is recorded, and the waiter returns on it without
 *       reading (the watch is set on the raw ZooKeeper handle, since Curator's namespace wrapper
 *       drops the zxid); its deletion wakes the waiter to read the break. Nothing else decides: session events
 *       ({@code EventType.None}), a wait that returns with no event, events for other paths or
 *       generations, and an event queued in the client (no zxid) only lead to another read. So
 *       either every waiter of a phase is let through, or every one gets
 *       {@link io.coord.BarrierBrokenException}.
 *   <li><b>Failures are loud.</b> A member whose session ends while others wait breaks the
 *       generation; so does any waiter's timeout or interrupt. Every waiter then gets
 *       {@link io.coord.BarrierBrokenException} naming the failed or missing members. A member
 *       arriving at a broken generation fails at once. A broken generation stays broken until
 *       {@link io.coord.barrier.DoubleBarrier#reset()}. Such a refusal (and the reset's "is it
 *       broken?") is decided on a read after a ZooKeeper {@code sync}: a member whose server lags
 *       behind the leader never turns itself away from a generation a reset has already opened.
 *   <li><b>Generations.</b> The same barrier name serves round after round: the first member to
 *       enter after a finished round opens the next generation, with its own nodes. A slow
 *       member still leaving round {@code n} reads only round {@code n}'s nodes, so it never sees
 *       round {@code n+1}'s state, and a member can only join the generation that is open.
 *   <li><b>More members than parties</b>: the first {@code parties} seats (by arrival order) are
 *       the generation; any other member is refused with {@link io.coord.BarrierBrokenException}
 *       and the generation is not affected.
 * </ul>
 *
 * <h2>Node layout</h2>
 * <pre>
 * /barriers/{name}                                   persistent; data: the current generation's record (JSON)
 * /barriers/{name}/{generation}                      persistent, 10 digits
 * /barriers/{name}/{generation}/members                        persistent; data version = arrivals so far
 * /barriers/{name}/{generation}/members/m-{memberId}-{unique}-{seq}     ephemeral-sequential: one seat (unique: the member's prefix + random)
 * /barriers/{name}/{generation}/members/left-{seq}   persistent: seat {seq} left
 * /barriers/{name}/{generation}/members/withdrawn-{seq}  persistent: seat {seq} was withdrawn before the decision (a cancelled enterAsync)
 * /barriers/{name}/{generation}/decision             persistent, made with the generation: READY sets its data, a break in enter deletes it; waiters in enter watch it (exists)
 * /barriers/{name}/{generation}/ready                persistent: all entered (data: the admitted seats)
 * /barriers/{name}/{generation}/done                 persistent: all left
 * /barriers/{name}/{generation}/broken               persistent: broke (data: reason, failed members, phase)
 * /gates/{name}                                      persistent: a set gate
 * </pre>
 * Only generations sit directly under {@code /barriers/{name}}. A member refuses to enter beside
 * Curator {@code DistributedDoubleBarrier} nodes there (participant UUIDs, {@code ready}: Curator
 * counts every child as an entered member, so one barrier cannot have members of both) with
 * {@link io.coord.ForeignNodesException} naming them, checked before a barrier object's first
 * {@code enter}; any other foreign child is logged at WARN once and listed by
 * {@link io.coord.barrier.BarrierStatus#foreign()} (docs/MIGRATING.md).
 * Exactly one of {@code ready} and {@code broken}-during-enter, and exactly one of {@code done}
 * and {@code broken}-during-leave, can exist for a generation. Seats are deleted shortly (100 ms)
 * after everyone left, so that the deletes do not hold up the other members' reads of the outcome;
 * generations older than {@link io.coord.barrier.BarrierOptions#keepGenerations()} are removed by
 * the member that opens a new one.
 *
 * <h2>Failure semantics</h2>
 * <ul>
 *   <li><b>SUSPENDED</b> (connection lost, session maybe alive): waiters keep waiting; on reconnect
 *       they read the state again (ZooKeeper re-registers their watches). A seat is
 *       {@link io.coord.LeaseState#UNCERTAIN} meanwhile and {@code leave} waits for it.
 *   <li><b>LOST</b> (session expired): the member's seat vanishes; while the phase is undecided
 *       that breaks the generation, and the other waiters learn it within about the session timeout
 *       (each seat is watched by one live waiter: no herd). If the phase was already decided, the
 *       decision stands. The client may give its session up (Curator's LOST, by its own timer)
 *       up to a session timeout before the server expires it, and the seat lives until then: a
 *       member that comes back on a new session and finds the seat it took on the old one still
 *       counted (its create's answer was lost, or the count completed with it) breaks that
 *       generation at once, in enter or, if it went READY, in leave. It never takes a second seat
 *       beside it and is never refused as one more than the parties; the others get
 *       {@link io.coord.BarrierBrokenException} naming it, and after a reset the next generation
 *       goes on. (Its seats carry a prefix of its own, so a member knows them.) A member that
 *       cannot reach ZooKeeper at all gives up one session timeout after its own timeout with
 *       {@link io.coord.ConnectionLostException} (its outcome is unknown to it; the others are
 *       never left hanging by it, since its seat expires).
 *   <li><b>Interrupt</b>: the interrupted waiter breaks the generation and throws
 *       {@link InterruptedException}, unless the phase was already decided for everyone: then it
 *       returns normally with its interrupt flag set. A second interrupt gives up at once.
 * </ul>
 *
 * <h2>Async calls</h2>
 * {@link io.coord.barrier.DoubleBarrier#enterAsync} and
 * {@link io.coord.barrier.BarrierSeat#leaveAsync} run the same steps as {@code enter} and
 * {@code leave} (the same reads, the same decisions, the same server facts; one implementation).
 * Where the blocking call parks its thread, the async one holds none: a watch, a change of the
 * session or the seat's lease, or the deadline (on {@link System#nanoTime()}) starts its next step
 * on the client's own callback thread ({@code coord-callbacks-N}: started on demand, stopped
 * when the client closes; a step is a read and its decision, about a round trip, and the
 * client's async calls take turns there). The future completes on the caller's executor (by default CompletableFuture's default
 * async executor), never on ZooKeeper's or Coord's event thread. Failure semantics are the
 * blocking calls' above, with cancelling in the place of an interrupt:
 * <ul>
 *   <li>SUSPENDED: keeps waiting and reads again on the reconnect. Another member's session
 *       ends: fails with {@link io.coord.BarrierBrokenException} naming it, within about its
 *       session timeout. This member's session ends, or its timeout passes: fails as the
 *       blocking call throws (the generation breaks for everyone). ZooKeeper unreachable past
 *       the timeout plus a session: {@link io.coord.ConnectionLostException}. Session events,
 *       queued events and events for other paths never complete a pending call.
 *   <li><b>Cancelling a pending enter withdraws this member</b>: while the generation is OPEN,
 *       one transaction that checks the record is still undecided deletes the seat, creates
 *       its {@code withdrawn-{seq}} marker and bumps the members node's version. The rules count
 *       a withdrawn seat as never having come: it is not a vanished member (nothing breaks), the
 *       parties are the first {@code parties} seats not withdrawn, and the next seat not
 *       withdrawn takes over its watch. If READY was recorded first (this member among the
 *       parties), it is too late: the seat is closed, which abandons the generation (the others
 *       get {@link io.coord.BarrierBrokenException} in leave), as {@code close()} before
 *       {@code leave} does.
 *   <li><b>Cancelling a pending leave</b> stops this member waiting; a leave cannot be taken
 *       back. If its {@code left} marker is in place, it stands and the others finish; if not
 *       yet, the seat is closed without it and the generation breaks for the others. The seat
 *       is released either way.
 *   <li>An executor that refuses the completion: the future fails with
 *       {@link java.util.concurrent.RejectedExecutionException} (an entered seat is closed).
 * </ul>
 */
package io.coord.barrier;
