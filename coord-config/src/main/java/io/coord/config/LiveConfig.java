package io.coord.config;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.Registration;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * A configuration value kept current: reads {@code /config/{app}/{key}} (or every key of a
 * whole-app {@link ConfigKey}) and applies each change within milliseconds, without a restart,
 * and never a broken one.
 *
 * <pre>{@code
 * try (LiveConfig<Limits> limits = LiveConfig.watch(client, LIMITS, ConfigOptions.builder().instanceId("orders-7").build())) {
 *     limits.awaitInitialized(Duration.ofSeconds(10));
 *     limits.addListener(new ConfigListener<>() {
 *         public void onChange(ConfigChange<Limits> c) { pool.resize(c.newValue().maxConnections()); }
 *     }, executor);
 *     ... limits.get().timeout() ...   // always the last good value, never null
 * }
 * }</pre>
 *
 * <p>Guarantees:
 * <ul>
 *   <li><b>Last good value.</b> {@link #get()} returns the last value that decoded as the key's type
 *       and passed its validator. A malformed, wrong-typed, oversize or invalid update is never
 *       applied: the reader keeps what it had, logs, counts {@code coord.config.rejected} (tags:
 *       app, key, version, reason) and tells {@link ConfigListener#onRejected}.</li>
 *   <li><b>No going back.</b> Updates are ordered by the node's mzxid; a read older than one
 *       already seen is ignored, so applied versions only increase (see {@code VersionRule}).
 *       Intermediate versions may be skipped when updates come faster than reads (ZooKeeper
 *       watches coalesce); the latest is never missed.</li>
 *   <li><b>Nothing assumed after a reconnect.</b> After SUSPENDED the reader reports
 *       {@linkplain #isStale() stale}; after RECONNECTED, and on a new session after an expiry,
 *       it syncs and reads every node again (setting its watches again), then is current again.
 *       While disconnected it keeps serving the last good value.</li>
 *   <li><b>Canary.</b> If a canary is running for the key and this instance's id hashes below its
 *       percentage, the canary value is applied instead (origin {@link Versioned.Origin#CANARY});
 *       when it is promoted or aborted the reader moves to the released value.</li>
 *   <li><b>Reports.</b> Unless turned off, the reader keeps an ephemeral node saying what it
 *       applied ({@link ConfigStore#who}), rewritten once the reader settles: 250 ms plus a
 *       stable per-reader offset under 1 s (a hash of the instance id and the key) after the last
 *       change, at most 5 s plus that offset, and at most once a second. A burst of updates costs
 *       one report write; the readers of one change write theirs spread over that second, not all
 *       at once, so the next change does not queue behind them on the server; report writes (which
 *       ZooKeeper orders before the session's later reads) never slow down applying; and a report
 *       that would say what the last one on this session said (after a reconnect, say) is not
 *       written again.</li>
 *   <li><b>Local fallback.</b> With a {@linkplain ConfigOptions#snapshotDir() snapshot directory}
 *       the last applied value is saved locally and used at start-up when the ensemble cannot be
 *       reached, as origin {@link Versioned.Origin#SNAPSHOT} and stale until the first live read
 *       replaces it.</li>
 * </ul>
 * Metrics (tags app, key, instance): {@code coord.config.applied.version} (gauge),
 * {@code coord.config.stale} (gauge, 1 when stale), {@code coord.config.rejected} (counter),
 * {@code coord.config.propagation} (timer: from the write's mtime on the server to the apply here;
 * includes clock skew between the server and this host).
 *
 * <p>Threads: a data change is re-read from the watch event and applied on ZooKeeper's event
 * thread, as Curator's caches do (no extra hand-off between a write and its listeners); each
 * reader also has one config thread ({@code coord-config-{app}/{key}-n}) for the reads after a
 * reconnect (sync first), creates, deletes, retries, the snapshot file and the reports. Listeners
 * run on the executors they were registered with. Close the reader to stop it: it removes its
 * watches and its report node.
 */
public interface LiveConfig<T> extends AutoCloseable {
    /** Starts watching {@code key} through {@code client}, which stays the caller's to close (after this reader). */
    static <T> LiveConfig<T> watch(CoordClient client, ConfigKey<T> key, ConfigOptions options) {
        return ZkLiveConfig.open(client, key, options);
    }

    /**
     * Starts watching {@code key} through a client of its own, connected in the background and
     * closed with the reader. Unlike {@link #watch(CoordClient, ConfigKey, ConfigOptions)} this
     * returns at once even while the ensemble is unreachable, so with a snapshot directory a
     * service can start during a ZooKeeper outage: {@link #awaitInitialized} then returns the
     * snapshot's value, and the live value replaces it once the ensemble answers.
     */
    static <T> LiveConfig<T> watch(CoordSettings settings, ConfigKey<T> key, ConfigOptions options) {
        return ZkLiveConfig.open(settings, key, options);
    }

    ConfigKey<T> key();

    /**
     * Waits until the reader has a value and returns it: the live value once every node was read,
     * the key's default if the key does not exist, or the snapshot's value if the ensemble could
     * not be read (at once when connecting or reading fails, else after
     * {@link ConfigOptions#fallbackAfter()}).
     *
     * @throws io.coord.NotAuthorizedException naming the path and this client's identity as soon as the server
     *                                         refuses to let it READ the key (and there is no snapshot): waiting
     *                                         would not help; the reader keeps trying in case the ACL is changed
     * @throws io.coord.CoordTimeoutException  naming the key and the last error if there is none within {@code timeout}
     * @throws InterruptedException            if interrupted while waiting
     */
    T awaitInitialized(Duration timeout) throws InterruptedException;

    /**
     * The last good value; never null.
     *
     * @throws IllegalStateException before the reader has a value (see {@link #awaitInitialized})
     */
    T get();

    /** The last good value with its version and origin. Same precondition as {@link #get()}. */
    Versioned<T> current();

    /** The current value, or empty before the reader has one. */
    Optional<Versioned<T>> currentIfAny();

    /** True while the value may be out of date: it came from the snapshot, or the connection is down and not yet re-read. */
    boolean isStale();

    /** Whether the value in effect is a canary value. */
    boolean inCanary();

    /** Registers a listener called on {@code executor}; see {@link ConfigListener} for the contract. */
    Registration addListener(ConfigListener<T> listener, Executor executor);

    /** Stops watching: removes the watches and the report node. Idempotent. An owned client is closed. */
    @Override
    void close();
}
