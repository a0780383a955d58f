package io.coord.queue;

import io.coord.ConfigurationException;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * How a {@link TaskQueue} behaves. Built by {@link #builder()}, which fails early: each setting may
 * be set once, a malformed value fails when set, and contradictions fail at {@code build()}.
 *
 * @param maxTaskBytes  largest serialized payload (default 64 KiB); larger ones are refused at
 *                      enqueue with {@link TaskRejectedException}
 * @param maxRetries    failures after the first before a task is dead-lettered (default 3, so at
 *                      most 4 attempts); a {@link TaskSpec} may override it per task
 * @param backoffBase   retry delay after the first failure (default 1 s), doubling per failure
 * @param backoffMax    cap on the retry delay (default 5 min)
 * @param backoffJitter fraction by which a retry delay may be shortened at random (default 0.2)
 * @param lanes         number of priority lanes, 1..{@value #MAX_LANES} (default 1)
 * @param depthCap      most tasks (pending + processing) the queue holds, 1..{@value #MAX_DEPTH_CAP}
 *                      (default {@value #DEFAULT_DEPTH_CAP}); an enqueue past it raises
 *                      {@link QueueFullException} (exactly from half the cap on; see the package
 *                      documentation for below half)
 * @param consumerName  how this process's claims name their owner in stats (default {@code pid@host})
 * @param clock         wall clock for enqueue times, delays and backoff (compared across processes)
 * @param shutdownGrace how long {@link TaskWorker#close()} lets in-flight tasks finish before
 *                      interrupting them and releasing their claims (default 30 s)
 * @param claimTimeout  how long a claim lasts without being extended ({@link TaskClaim#extend}),
 *                      judged by ZooKeeper's clock; past it, another consumer takes the task over
 *                      and the stale claimer's endings are refused. {@link Duration#ZERO} (the
 *                      default) turns it off: a claim then ends only with its consumer's session,
 *                      as before, because a timeout on by default would redeliver every long task
 *                      of a consumer that calls {@code claim()} and never extends. Else
 *                      {@value #MIN_CLAIM_TIMEOUT_MILLIS} ms..24 h
 * @param maxProcessing how long a {@link TaskWorker} keeps extending the claim of a running
 *                      handler (default 30 min, only with a claim timeout); a handler still running
 *                      after it is taken for hung: its claim times out and the task is redelivered
 * @param idempotencyWindow how long a completed task's idempotency key is remembered (default 1 h):
 *                      within it, an enqueue with that key returns the completed task's id and
 *                      {@link EnqueueResult.Outcome#ALREADY_COMPLETED} instead of adding a task.
 *                      Judged by ZooKeeper's clock (node times), not the producers'
 * @param idempotencyKeys most completed keys remembered, 1..{@value #MAX_IDEMPOTENCY_KEYS} (default
 *                      {@value #DEFAULT_IDEMPOTENCY_KEYS}); past it the oldest completions are
 *                      forgotten first, even inside the window. Held after each keyed enqueue;
 *                      completions in between may go past it until the next one
 * @param maxDeliveries how many deliveries of a task may end without a {@code complete()} or
 *                      {@code fail()} (its consumer died, its claim timed out, or it was released)
 *                      before the next consumer about to claim it moves it to the dead letters
 *                      instead of handing it out (default {@value #DEFAULT_MAX_DELIVERIES}; 0 turns
 *                      it off). On by default because without it a task that always hangs or
 *                      always kills its consumer is redelivered forever, each time costing a claim
 *                      or session timeout; 10 is far above what a healthy task sees (a few
 *                      redeliveries around a deploy or a crash). Like SQS's {@code maxReceiveCount},
 *                      but deliveries ended by {@code fail()} are left to {@code maxRetries}
 * @param partitions    directories the queue's tasks are spread over, 1..{@value #MAX_PARTITIONS}
 *                      (default 1: the single layout {@code /queues/{name}/tasks}). Each partition
 *                      has its own listing, cap ({@code depthCap} is per partition), watches and
 *                      keys, so depth scales with it. Recorded on the server when the queue is
 *                      made; opening it with another count is refused naming both. {@link #AS_RECORDED}
 *                      (0) opens it with the recorded count, as the CLI does
 */
public record QueueOptions(int maxTaskBytes, int maxRetries, Duration backoffBase, Duration backoffMax,
                           double backoffJitter, int lanes, int depthCap, String consumerName, Clock clock,
                           Duration shutdownGrace, Duration claimTimeout, Duration maxProcessing,
                           Duration idempotencyWindow, int idempotencyKeys, int maxDeliveries, int partitions) {
    public static final int DEFAULT_MAX_TASK_BYTES = 64 * 1024;
    /** Room left in a znode for the task's own fields (attempts, times, last error) around the payload. */
    public static final int MAX_TASK_BYTES = 1_000_000 - 16 * 1024;
    public static final int DEFAULT_DEPTH_CAP = 10_000;
    /**
     * Highest cap allowed (per partition). A listing of the tasks node must stay under ZooKeeper's
     * 1 MB reply limit; at about 36 bytes per name (an unkeyed task of a partition,
     * {@code task-p{i}-{11 chars}-0000000042}, plus framing) that is roughly 29 000 children, and
     * 25 000 keeps a margin. More depth comes from partitions, each with its own cap.
     */
    public static final int MAX_DEPTH_CAP = 25_000;
    public static final int MAX_LANES = 16;
    /** Shortest claim timeout: it must outlast a few round trips of an extend under load. */
    public static final long MIN_CLAIM_TIMEOUT_MILLIS = 1_000;
    public static final Duration MAX_CLAIM_TIMEOUT = Duration.ofHours(24);
    public static final Duration DEFAULT_MAX_PROCESSING = Duration.ofMinutes(30);
    public static final int DEFAULT_IDEMPOTENCY_KEYS = 5_000;
    /**
     * Highest bound on remembered keys. A remembered key is an entry in {@code completed/} (about
     * 16 bytes in its listing, which the sweep reads: 50 000 keep it far under ZooKeeper's 1 MB
     * reply limit) and a key node, which adds its name (key length + 6 bytes) to a listing of
     * {@code keys/}; only {@link TaskQueue#stats()} lists that, beside every live task's key, so
     * with long keys keep the bound well below this.
     */
    public static final int MAX_IDEMPOTENCY_KEYS = 50_000;
    public static final int DEFAULT_MAX_DELIVERIES = 10;
    /** Most partitions: each is a watched directory, and a consumer keeps one index per partition. */
    public static final int MAX_PARTITIONS = 256;
    /** {@code partitions(AS_RECORDED)}: open the queue with the count the server recorded (1 for a new queue); for tools. */
    public static final int AS_RECORDED = 0;

    public QueueOptions {
        if (maxTaskBytes < 1 || maxTaskBytes > MAX_TASK_BYTES) {
            throw new ConfigurationException("maxTaskBytes must be within 1.." + MAX_TASK_BYTES + ", got " + maxTaskBytes);
        }
        if (partitions < AS_RECORDED || partitions > MAX_PARTITIONS) {
            throw new ConfigurationException("partitions must be within 1.." + MAX_PARTITIONS + " (or " + AS_RECORDED
                    + ": as the server recorded), got " + partitions);
        }
        if (maxRetries < 0) {
            throw new ConfigurationException("maxRetries must be >= 0, got " + maxRetries);
        }
        try {
            new Backoff(backoffBase, backoffMax, backoffJitter);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
        if (lanes < 1 || lanes > MAX_LANES) {
            throw new ConfigurationException("lanes must be within 1.." + MAX_LANES + ", got " + lanes);
        }
        if (depthCap < 1 || depthCap > MAX_DEPTH_CAP) {
            throw new ConfigurationException("depthCap must be within 1.." + MAX_DEPTH_CAP + ", got " + depthCap);
        }
        if (consumerName == null || consumerName.isBlank() || consumerName.length() > 200) {
            throw new ConfigurationException("consumerName must be 1..200 non-blank characters, got " + consumerName);
        }
        Objects.requireNonNull(clock, "clock");
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new ConfigurationException("shutdownGrace must be >= 0, got " + shutdownGrace);
        }
        checkClaimTimeout(claimTimeout);
        if (maxProcessing == null || maxProcessing.isNegative() || maxProcessing.isZero()) {
            throw new ConfigurationException("maxProcessing must be > 0, got " + maxProcessing);
        }
        if (idempotencyWindow == null || idempotencyWindow.isNegative() || idempotencyWindow.isZero()) {
            throw new ConfigurationException("idempotencyWindow must be > 0, got " + idempotencyWindow);
        }
        if (idempotencyKeys < 1 || idempotencyKeys > MAX_IDEMPOTENCY_KEYS) {
            throw new ConfigurationException("idempotencyKeys must be within 1.." + MAX_IDEMPOTENCY_KEYS + ", got "
                    + idempotencyKeys);
        }
        checkMaxDeliveries(maxDeliveries);
    }

    private static void checkMaxDeliveries(int value) {
        if (value < 0) {
            throw new ConfigurationException("maxDeliveries must be 0 (off) or >= 1, got " + value);
        }
    }

    private static void checkClaimTimeout(Duration value) {
        if (value == null || value.isNegative() || (!value.isZero() && (value.toMillis() < MIN_CLAIM_TIMEOUT_MILLIS
                || value.compareTo(MAX_CLAIM_TIMEOUT) > 0))) {
            throw new ConfigurationException("claimTimeout must be 0 (off) or within " + MIN_CLAIM_TIMEOUT_MILLIS + " ms.."
                    + MAX_CLAIM_TIMEOUT + ", got " + value);
        }
    }

    /** Whether claims time out unless extended. */
    boolean claimsTimeOut() {
        return !claimTimeout.isZero();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** All defaults. */
    public static QueueOptions defaults() {
        return builder().build();
    }

    /** A builder holding these options, to derive a variant (each setting may be set once more). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxTaskBytes = maxTaskBytes;
        b.maxRetries = maxRetries;
        b.backoffBase = backoffBase;
        b.backoffMax = backoffMax;
        b.backoffJitter = backoffJitter;
        b.lanes = lanes;
        b.depthCap = depthCap;
        b.consumerName = consumerName;
        b.clock = clock;
        b.shutdownGrace = shutdownGrace;
        b.claimTimeout = claimTimeout;
        b.maxProcessing = claimsTimeOut() ? maxProcessing : null; // the default, which needs no timeout
        b.idempotencyWindow = idempotencyWindow;
        b.idempotencyKeys = idempotencyKeys;
        b.maxDeliveries = maxDeliveries;
        b.partitions = partitions;
        return b;
    }

    Backoff backoff() {
        return new Backoff(backoffBase, backoffMax, backoffJitter);
    }

    /** Builds {@link QueueOptions}; see the record for each setting's meaning and default. */
    public static final class Builder {
        private Integer maxTaskBytes;
        private Integer maxRetries;
        private Duration backoffBase;
        private Duration backoffMax;
        private Double backoffJitter;
        private Integer lanes;
        private Integer partitions;
        private Integer depthCap;
        private String consumerName;
        private Clock clock;
        private Duration shutdownGrace;
        private Duration claimTimeout;
        private Duration maxProcessing;
        private Duration idempotencyWindow;
        private Integer idempotencyKeys;
        private Integer maxDeliveries;
        private final Set<String> set = new HashSet<>();

        private Builder() {
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new ConfigurationException("queue option '" + name + "' was set twice");
            }
        }

        public Builder maxTaskBytes(int value) {
            once("maxTaskBytes");
            maxTaskBytes = value;
            return this;
        }

        public Builder maxRetries(int value) {
            once("maxRetries");
            if (value < 0) {
                throw new ConfigurationException("maxRetries must be >= 0, got " + value);
            }
            maxRetries = value;
            return this;
        }

        /** Retry delays: {@code base} after the first failure, doubling, at most {@code max}. */
        public Builder backoff(Duration base, Duration max) {
            once("backoff");
            backoffBase = Objects.requireNonNull(base, "base");
            backoffMax = Objects.requireNonNull(max, "max");
            return this;
        }

        public Builder backoffJitter(double value) {
            once("backoffJitter");
            backoffJitter = value;
            return this;
        }

        public Builder lanes(int value) {
            once("lanes");
            lanes = value;
            return this;
        }

        public Builder depthCap(int value) {
            once("depthCap");
            depthCap = value;
            return this;
        }

        public Builder consumerName(String value) {
            once("consumerName");
            consumerName = value;
            return this;
        }

        public Builder clock(Clock value) {
            once("clock");
            clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        public Builder shutdownGrace(Duration value) {
            once("shutdownGrace");
            shutdownGrace = Objects.requireNonNull(value, "shutdownGrace");
            return this;
        }

        /** Claims time out after {@code value} unless extended; see the record. */
        public Builder claimTimeout(Duration value) {
            once("claimTimeout");
            checkClaimTimeout(value);
            claimTimeout = value;
            return this;
        }

        /** How long a worker extends a running handler's claim; only with a claim timeout. */
        public Builder maxProcessing(Duration value) {
            once("maxProcessing");
            maxProcessing = Objects.requireNonNull(value, "maxProcessing");
            return this;
        }

        public Builder idempotencyWindow(Duration value) {
            once("idempotencyWindow");
            idempotencyWindow = Objects.requireNonNull(value, "idempotencyWindow");
            return this;
        }

        public Builder idempotencyKeys(int value) {
            once("idempotencyKeys");
            idempotencyKeys = value;
            return this;
        }

        /** Deliveries without an ending before a task is dead-lettered; 0 turns it off. See the record. */
        public Builder maxDeliveries(int value) {
            once("maxDeliveries");
            checkMaxDeliveries(value);
            maxDeliveries = value;
            return this;
        }

        /** Partitions of the queue (default 1); must match what the server recorded. See the record. */
        public Builder partitions(int value) {
            once("partitions");
            partitions = value;
            return this;
        }

        public QueueOptions build() {
            boolean timeout = claimTimeout != null && !claimTimeout.isZero();
            if (maxProcessing != null && !timeout) {
                throw new ConfigurationException("maxProcessing (" + maxProcessing + ") needs a claimTimeout: without one"
                        + " a claim never times out, so there is nothing to stop extending");
            }
            return new QueueOptions(
                    maxTaskBytes == null ? DEFAULT_MAX_TASK_BYTES : maxTaskBytes,
                    maxRetries == null ? 3 : maxRetries,
                    backoffBase == null ? Duration.ofSeconds(1) : backoffBase,
                    backoffMax == null ? Duration.ofMinutes(5) : backoffMax,
                    backoffJitter == null ? 0.2 : backoffJitter,
                    lanes == null ? 1 : lanes,
                    depthCap == null ? DEFAULT_DEPTH_CAP : depthCap,
                    consumerName == null ? defaultConsumerName() : consumerName,
                    clock == null ? Clock.systemUTC() : clock,
                    shutdownGrace == null ? Duration.ofSeconds(30) : shutdownGrace,
                    claimTimeout == null ? Duration.ZERO : claimTimeout,
                    maxProcessing == null ? DEFAULT_MAX_PROCESSING : maxProcessing,
                    idempotencyWindow == null ? Duration.ofHours(1) : idempotencyWindow,
                    idempotencyKeys == null ? DEFAULT_IDEMPOTENCY_KEYS : idempotencyKeys,
                    maxDeliveries == null ? DEFAULT_MAX_DELIVERIES : maxDeliveries,
                    partitions == null ? 1 : partitions);
        }

        private static String defaultConsumerName() {
            // "pid@host", as the JVM names itself
            String name = ManagementFactory.getRuntimeMXBean().getName();
            return name.length() > 200 ? name.substring(0, 200) : name;
        }
    }
}
