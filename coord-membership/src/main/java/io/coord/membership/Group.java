package io.coord.membership;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.Registration;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * A named group of members: the live, versioned view of who is up, and the way to join.
 *
 * <pre>{@code
 * try (Group<Worker> workers = Group.open(client, "batch-7", Worker.class);
 *      Membership<Worker> me = workers.join("worker-3", new Worker("10.0.0.3", 8)))  {
 *     workers.addListener(new GroupListener<>() {
 *         public void onLeft(MemberInfo<Worker> m, GroupView<Worker> view) { reassign(m.id()); }
 *     }, executor);
 *     GroupView<Worker> all = workers.awaitMembers(4, Duration.ofMinutes(1));
 * }
 * }</pre>
 *
 * <p>Opening a group reads it once and then keeps its {@link #view()} current: a persistent
 * recursive watch on {@code /groups/{name}} tells it of every change, with its zxid: a departure
 * is applied as the server reported it, an arrival or update reads that member only (O(1)
 * requests per change, whatever the group's size; see the package documentation). While the connection is SUSPENDED the view is the last one read (it may be stale);
 * after a reconnect, and after a session expiry (on the new session, after a {@code sync}), the
 * view is rebuilt from a fresh read and listeners get exactly the differences. Versions never go
 * back for one {@code Group} object.
 *
 * <p>Closing the group leaves every membership joined through it and stops watching. A group
 * is bound to its {@link CoordClient}, not to one session: it follows the client's sessions.
 */
public interface Group<M> extends AutoCloseable {
    /** Where groups live: {@code /groups/{name}/{memberId}}. */
    CoordPath ROOT = CoordPath.of("/groups");

    /**
     * A member that left and joined again within the flap window, as this observer saw it.
     *
     * @param memberId     the member's id
     * @param count        how many flaps this observer has seen for the id
     * @param lastAt       when the last flap's rejoin was seen
     * @param lastDowntime how long the member was gone that time (as observed)
     */
    record Flap(String memberId, int count, Instant lastAt, Duration lastDowntime) {
        public Flap {
            CoordPath.validateName(memberId);
            if (count <= 0) {
                throw new IllegalArgumentException("flap count of " + memberId + " must be > 0, got " + count);
            }
            Objects.requireNonNull(lastAt, "lastAt");
            Objects.requireNonNull(lastDowntime, "lastDowntime");
        }
    }

    /**
     * Opens the group {@code name} with default options for metadata of {@code metadataType}.
     * See {@link #open(CoordClient, String, GroupOptions)}.
     */
    static <M> Group<M> open(CoordClient client, String name, Class<M> metadataType) throws InterruptedException {
        return open(client, name, GroupOptions.of(metadataType));
    }

    /**
     * Opens the group {@code name} (a single path segment): reads its members once (blocking, with
     * Curator's retries) and starts watching. The group node need not exist yet. Fails with
     * {@link io.coord.InvalidNameException} for a bad name and with the translated ZooKeeper error
     * if the first read fails; nothing is left running then.
     *
     * @throws InterruptedException if interrupted during the first read; nothing is left running
     */
    static <M> Group<M> open(CoordClient client, String name, GroupOptions<M> options) throws InterruptedException {
        return ZkGroup.open(client, name, options);
    }

    String name();

    /** {@code /groups/{name}}. */
    CoordPath path();

    GroupOptions<M> options();

    /**
     * Joins as {@code memberId} with {@code metadata}: creates the ephemeral node
     * {@code /groups/{name}/{memberId}} on the current session.
     *
     * <p>Refused before anything is written: a bad id ({@link io.coord.InvalidNameException}),
     * metadata that cannot be serialized ({@link io.coord.CodecException}) or is over the limit
     * ({@link io.coord.ValueTooLargeException}). Refused by the server's state: the id is held by
     * another live session or another handle of this client ({@link MemberIdTakenException},
     * naming the id and the holder's session), or the group is full
     * ({@link io.coord.TooManyChildrenException}). No session right now:
     * {@link io.coord.SessionExpiredException}; connection lost during the create:
     * {@link io.coord.ConnectionLostException} (call again: a node this session created is
     * recognized and adopted).
     *
     * @throws InterruptedException if interrupted while waiting for the server
     */
    Membership<M> join(String memberId, M metadata) throws InterruptedException;

    /** The current view. Never blocks; after SUSPENDED it is the last view read. */
    GroupView<M> view();

    /**
     * Registers a listener, called on {@code executor}; see {@link GroupListener} for what it is
     * told and the contract. It first receives the current view as joins.
     */
    Registration addListener(GroupListener<M> listener, Executor executor);

    /**
     * Waits until the view holds at least {@code n} members and returns that view. Fails with
     * {@link io.coord.CoordTimeoutException} naming the group, {@code n} and who is there when
     * {@code timeout} passes first.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    GroupView<M> awaitMembers(int n, Duration timeout) throws InterruptedException;

    /**
     * {@link #awaitMembers} without a waiting thread: the future completes with the first view
     * that holds at least {@code n} members (at once if the current one does), or fails with
     * {@link io.coord.CoordTimeoutException} naming the group, {@code n} and who is there when
     * {@code timeout} passes first (measured on {@link System#nanoTime()}, as the sync call), or
     * with {@link IllegalStateException} when the group closes first.
     *
     * <p>No thread is parked per pending call: the group checks pending calls as it installs each
     * view, and the client's timer ends them at their timeout. The future is always completed on
     * {@code executor}, never on ZooKeeper's event thread or the group's own thread (if
     * {@code executor} refuses the task, the future fails with that
     * {@link java.util.concurrent.RejectedExecutionException} where it stands). Cancelling the future
     * (or completing it yourself) withdraws the call: nothing more runs for it and nothing is left
     * behind. It writes nothing to ZooKeeper.
     *
     * @throws IllegalArgumentException if {@code n < 0} or {@code timeout} is negative
     * @throws IllegalStateException    if the group is closed
     */
    java.util.concurrent.CompletableFuture<GroupView<M>> awaitMembersAsync(int n, Duration timeout, Executor executor);

    /**
     * Waits until {@code memberId} is in the view and returns it; {@link io.coord.CoordTimeoutException}
     * naming the id and the group when {@code timeout} passes first.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    MemberInfo<M> awaitMember(String memberId, Duration timeout) throws InterruptedException;

    /** Every member id this observer saw flap, with its count and last flap. */
    Map<String, Flap> flaps();

    /** Leaves every membership joined through this group, stops watching, removes listeners. Idempotent. */
    @Override
    void close();
}
