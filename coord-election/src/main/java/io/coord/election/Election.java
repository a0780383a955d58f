package io.coord.election;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.Registration;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;

/**
 * One election, by name, on one {@link CoordClient}: a candidate ({@link #campaign},
 * {@link #lead}), an observer ({@link #leader()}, {@link #observe}), or both.
 *
 * <pre>{@code
 * try (Election election = Election.open(client, "billing", ElectionOptions.builder()
 *         .participantId("billing-7").metadata(Map.of("url", "http://10.0.0.7:8080")).build())) {
 *     Registration r = election.lead(leadership -> {
 *         while (true) {
 *             leadership.checkValid();                         // UNCERTAIN or LOST: throws
 *             fence.enforce("invoices", leadership.epoch());   // a stale leader's write is refused
 *             doOneStep();                                     // interrupted when leadership wavers
 *         }
 *     });
 *     ...
 * }
 * }</pre>
 *
 * Creating the handle touches nothing in ZooKeeper. One handle holds at most one candidacy at a
 * time; use several handles for several candidacies. {@link #close()} interrupts its leader task,
 * resigns its leadership and withdraws its candidacy, so it leaves cleanly.
 *
 * <p>Sessions: a candidacy is bound to the session it was made on. If that session ends while
 * waiting, {@link #campaign} joins again on the next session (at the back of the line) within its
 * deadline; a {@link Leadership} whose session ends is LOST, never carried over.
 */
public interface Election extends AutoCloseable {
    /** Where elections live: {@code /elections/{name}}. */
    CoordPath ROOT = CoordPath.of("/elections");

    /** Opens the election {@code name} (one path segment) with default options. */
    static Election open(CoordClient client, String name) {
        return open(client, name, ElectionOptions.defaults());
    }

    /** Opens the election {@code name} (one path segment). Nothing is created until a campaign. */
    static Election open(CoordClient client, String name, ElectionOptions options) {
        return new ZkElection(client, name, options);
    }

    String name();

    /** {@code /elections/{name}}. */
    CoordPath path();

    ElectionOptions options();

    /**
     * Joins the election and blocks until this candidate leads (and its handover is done), or
     * {@code timeout} runs out. Waits watch only the predecessor's node.
     * <ul>
     *   <li>timeout: the candidacy is withdrawn, {@link io.coord.CoordTimeoutException};
     *   <li>interrupt: the candidacy is withdrawn, {@link InterruptedException};
     *   <li>SUSPENDED while waiting: keeps waiting; elected while UNCERTAIN: waits until restored;
     *   <li>session ended while waiting: joins again on the next session.
     * </ul>
     * Throws {@link IllegalStateException} if this handle already has a candidacy or leadership.
     */
    Leadership campaign(Duration timeout) throws InterruptedException;

    /**
     * Like {@link #campaign} without a deadline, on a thread this election owns. Cancelling the
     * future withdraws the candidacy; so does {@link #close()}.
     */
    CompletableFuture<Leadership> campaignAsync();

    /**
     * Runs {@code task} each time this candidate leads, on a thread this election owns (see
     * {@link LeaderTask} for interrupts). When the task returns or throws, the leadership is
     * resigned; then, with {@link ElectionOptions#requeue()}, the candidate joins again (after a
     * throw, following a 0.5 s pause, so that a task failing at once does not spin). If the
     * leadership was only UNCERTAIN and comes back (same session, node still there), the task
     * runs again with the same leadership. Closing the registration (or the election) interrupts
     * the task, waits up to {@link ElectionOptions#taskStopTimeout()} for it, then resigns.
     */
    Registration lead(LeaderTask task);

    /**
     * Curator's {@code LeaderLatch} shape, for code typed against {@link LeaderLatchListener}:
     * {@code isLeader()} when this candidate starts leading (after Coord's handover),
     * {@code notLeader()} when that leadership is no longer certain (UNCERTAIN, LOST, resigned,
     * closed), both on {@code executor}, one at a time and in order. As Curator's documents say,
     * by the time {@code isLeader()} runs the leadership may be gone again; {@code notLeader()}
     * then follows. Unlike Curator's latch, an UNCERTAIN leadership that comes back (same
     * session, node still there) keeps its place: {@code isLeader()} again, same epoch. Like a
     * latch the candidate stays in the election: after each leadership it joins again (whatever
     * {@link ElectionOptions#requeue()} says) until the registration is closed. The epoch and the
     * loss signal: {@link LeaderRegistration#leadership()}.
     */
    LeaderRegistration lead(LeaderLatchListener listener, Executor executor);

    /**
     * Curator's {@code LeaderSelector} shape, for code typed against
     * {@link LeaderSelectorListener}: {@code takeLeadership(curator)} (this client's Curator
     * client) runs on {@code executor} while this candidate leads; its end (returning, throwing,
     * or being interrupted) relinquishes, as in Curator. It is interrupted when the leadership
     * becomes UNCERTAIN, LOST or is closed, whether or not {@code stateChanged} cancels (an
     * UNCERTAIN leadership is then resigned, not resumed); {@code stateChanged} gets the client's connection states on
     * {@code executor}, and a {@code CancelLeadershipException} thrown there (Curator's
     * {@code LeaderSelectorListenerAdapter} throws it on SUSPENDED and LOST) interrupts
     * {@code takeLeadership} too. Joining again after a leadership is
     * {@link ElectionOptions#requeue()} (Curator's {@code autoRequeue()}). Use
     * {@link CuratorLayout#SELECTOR} to share an election with Curator's {@code LeaderSelector}s.
     * The epoch and the loss signal: {@link LeaderRegistration#leadership()}.
     */
    LeaderRegistration lead(LeaderSelectorListener listener, Executor executor);

    /** Who leads now (one read), or empty if no candidate is in the election. */
    Optional<LeaderInfo> leader() throws InterruptedException;

    /** Every candidate, leader first, in the order they will lead. */
    List<Participant> candidates() throws InterruptedException;

    /**
     * Tells {@code listener} who leads, now and after every change, on {@code executor}; see
     * {@link ElectionListener} for the contract. Survives connection loss and session expiry
     * (it re-reads once the client is back).
     */
    Registration observe(ElectionListener listener, Executor executor);

    /** Leaves the election: stops its task, resigns, withdraws, stops observing. Idempotent. */
    @Override
    void close();
}
