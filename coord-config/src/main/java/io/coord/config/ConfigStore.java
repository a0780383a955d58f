package io.coord.config;

import io.coord.CoordClient;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Writes configuration safely: every value is checked (type, size, the key's validator) before
 * anything is sent, so a bad value never reaches readers; every publish is one transaction that
 * also records the value in the key's history; compare-and-set guards against lost updates.
 *
 * <pre>{@code
 * ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
 * Versioned<Limits> now = store.get(LIMITS).orElseThrow();
 * long v = store.compareAndSet(LIMITS, now.version(), new Limits(200, now.value().timeout()));
 * store.rollback(LIMITS, now.version());           // republishes the old value as version v + 1
 * store.canary(LIMITS, new Limits(400, ...), 10);  // 10 % of instances try it
 * store.who(LIMITS);                               // who runs which version
 * store.promote(LIMITS);                           // everyone gets it
 * }</pre>
 *
 * <p>Failures: a compare-and-set that lost is a {@link io.coord.ConflictException} naming the
 * current version; a value over {@link ConfigOptions#maxValueBytes()} is a
 * {@link io.coord.ValueTooLargeException} before anything is sent; a value the validator refuses
 * is a {@link ConfigValidationException}; a client without write permission under {@code /config}
 * gets a {@link io.coord.NotAuthorizedException} naming the path and its identity. While the
 * connection is SUSPENDED calls wait (within Curator's retry policy) and may then fail with
 * {@link io.coord.ConnectionLostException}; a publish is one transaction, so it either happened
 * entirely or not at all, and a publish whose answer was lost is recognised on retry. An
 * interrupt aborts the call with {@link InterruptedException}.
 */
public interface ConfigStore {
    /** A store writing through {@code client} (whose credentials decide what it may write). */
    static ConfigStore open(CoordClient client, ConfigOptions options) {
        return new ZkConfigStore(client, options);
    }

    /** The released value of {@code key}, decoded as its type; empty if the key does not exist. */
    <T> Optional<Versioned<T>> get(ConfigKey<T> key) throws InterruptedException;

    /** Publishes {@code value} as the next version, whatever the current one is; returns the new version. */
    <T> long put(ConfigKey<T> key, T value) throws InterruptedException;

    /**
     * Publishes {@code value} only if the key's current version is {@code expectedVersion};
     * returns the new version ({@code expectedVersion + 1}).
     *
     * @throws io.coord.ConflictException naming the current version (or saying the key does not exist)
     */
    <T> long compareAndSet(ConfigKey<T> key, long expectedVersion, T value) throws InterruptedException;

    /**
     * {@link #put} without blocking: the future completes with the new version on
     * {@link java.util.concurrent.ForkJoinPool#commonPool()}. See {@link #putAsync(ConfigKey, Object, Executor)}.
     */
    <T> CompletableFuture<Long> putAsync(ConfigKey<T> key, T value);

    /**
     * {@link #put} without blocking, with the same checks and the same transaction: the value is
     * checked (type, size, validator) now, on the calling thread, and a bad one is thrown here,
     * before anything is sent; the publish then runs in the background with no thread waiting
     * for it, and the future completes on {@code executor} (never on ZooKeeper's or Coord's event
     * thread; an executor that refuses the task: on the common pool).
     * <ul>
     *   <li>A put that loses a race with another writer looks again, as {@code put} does (at most
     *       20 times, then {@link io.coord.ConflictException}).
     *   <li>Connection loss: a transaction whose answer was lost is recognised as ours if the key
     *       holds our bytes at our version; otherwise it is tried again after a pause, until the
     *       client's {@code requestTimeout} (on {@link System#nanoTime()}), then the future fails
     *       with {@link io.coord.ConnectionLostException}.
     *   <li>Cancelling the future sends nothing more. Before the transaction was sent, nothing is
     *       written and no node is left behind (a key's first publish creates its directories in
     *       the transaction itself); a transaction already sent commits whole or not at all.
     * </ul>
     */
    <T> CompletableFuture<Long> putAsync(ConfigKey<T> key, T value, Executor executor);

    /** {@link #compareAndSet} without blocking, completing on the common pool: see {@link #compareAndSetAsync(ConfigKey, long, Object, Executor)}. */
    <T> CompletableFuture<Long> compareAndSetAsync(ConfigKey<T> key, long expectedVersion, T value);

    /**
     * {@link #compareAndSet} without blocking, with the rules of {@link #putAsync(ConfigKey, Object, Executor)}
     * (checks on the calling thread, completion on {@code executor}, cancellation, connection
     * loss). A compare-and-set that lost fails the future with {@link io.coord.ConflictException}
     * naming the current version (or saying the key does not exist); a bad
     * {@code expectedVersion} is thrown here.
     */
    <T> CompletableFuture<Long> compareAndSetAsync(ConfigKey<T> key, long expectedVersion, T value, Executor executor);

    /** Publishes {@code value} as version 0 if the key does not exist; false (and nothing written) if it does. */
    <T> boolean createIfAbsent(ConfigKey<T> key, T value) throws InterruptedException;

    /** Deletes the key with its history and any canary; false if it did not exist. Readers fall back to the default. */
    boolean delete(ConfigKey<?> key) throws InterruptedException;

    /**
     * Deletes the key (with its history and canary) only if its version is {@code expectedVersion}.
     *
     * @throws io.coord.ConflictException naming the current version
     */
    void delete(ConfigKey<?> key, long expectedVersion) throws InterruptedException;

    /** The kept versions (at most {@link ConfigOptions#historyDepth()}), newest first, as JSON text. */
    List<Versioned<String>> history(ConfigKey<?> key) throws InterruptedException;

    /**
     * Republishes the value of an earlier {@code version} (still in history) as a new version,
     * after checking it against today's type and validator; returns the new version.
     *
     * @throws IllegalArgumentException naming the kept versions if {@code version} is not in history
     */
    <T> long rollback(ConfigKey<T> key, long version) throws InterruptedException;

    /**
     * Offers {@code value} to {@code percent} % of instances ({@code 0 < percent <= 100}): those whose
     * instance id hashes below the percentage apply it, the rest keep the released value. Calling
     * it again replaces the canary. Returns the canary node's version.
     */
    <T> long canary(ConfigKey<T> key, T value, double percent) throws InterruptedException;

    /** The canary of {@code key}, if one is running. */
    Optional<Canary> canaryOf(ConfigKey<?> key) throws InterruptedException;

    /**
     * Releases the running canary's value to everyone: publishes it as the next version and
     * removes the canary, in one transaction. Returns the new version.
     *
     * @throws IllegalStateException if no canary is running
     * @throws io.coord.ConflictException if the canary was replaced or removed meanwhile
     */
    <T> long promote(ConfigKey<T> key) throws InterruptedException;

    /** Ends the running canary; its instances go back to the released value. False if none was running. */
    boolean abort(ConfigKey<?> key) throws InterruptedException;

    /** Every live reader's report for {@code key}: which version (and whether a canary) it applied. */
    List<Report> who(ConfigKey<?> key) throws InterruptedException;

    /**
     * What one reader reports it applied.
     *
     * @param instance  its instance id
     * @param version   the version it applied ({@link Versioned#NO_VERSION}: the default)
     * @param revision  the mzxid of that version
     * @param canary    whether it is a canary value
     * @param stale     whether the reader's connection was down when it reported
     * @param appliedAt when it reported (the reader's clock)
     */
    record Report(String instance, long version, long revision, boolean canary, boolean stale, Instant appliedAt) {
        public Report {
            Objects.requireNonNull(instance, "instance");
            Objects.requireNonNull(appliedAt, "appliedAt");
        }
    }

    /**
     * A running canary.
     *
     * @param percent  the share of instances that apply it
     * @param version  the canary node's version (how often it was replaced)
     * @param revision the canary node's mzxid
     * @param value    its value as JSON text
     */
    record Canary(double percent, long version, long revision, String value) {
    }
}
