package io.coord.naming;

import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BlockIds} with a double buffer: the current block is handed out lock-free from an
 * {@link AtomicLong}; the next one is reserved on a background thread ({@link BlockReserver}) once
 * the current one is {@link IdOptions#prefetchAt()} used. Only a thread that finds the current
 * block spent takes the lock, and it waits only if the next block is not there yet.
 */
final class ZkBlockIds implements BlockIds {
    private static final Logger LOG = LoggerFactory.getLogger(ZkBlockIds.class);

    /** One block being handed out. */
    private static final class Segment {
        final long end;
        final long prefetchFrom;
        final AtomicLong cursor;
        final AtomicBoolean prefetchStarted = new AtomicBoolean();

        Segment(long first, long end, long prefetchFrom) {
            this.end = end;
            this.prefetchFrom = prefetchFrom;
            this.cursor = new AtomicLong(first);
        }

        static Segment of(IdRule.Block block, double prefetchAt) {
            long used = Math.max(1, (long) Math.ceil(block.size() * prefetchAt));
            return new Segment(block.first(), block.end(), block.first() + used - 1);
        }
    }

    private final String name;
    private final IdOptions options;
    private final LongSupplier nanoTime;
    private final BlockReserver reserver;
    private final CoordMetrics metrics;
    private final ExecutorService fetcher;
    private final ReentrantLock advanceLock = new ReentrantLock();
    private final AtomicReference<CompletableFuture<IdRule.Block>> pending = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Segment current = new Segment(0, 0, 0);

    ZkBlockIds(Zk zk, String name, IdOptions options, LongSupplier nanoTime, int rolloverAt) {
        CoordPath node = Layout.blockNode(name);
        this.name = name;
        this.options = Objects.requireNonNull(options, "options");
        this.nanoTime = nanoTime;
        this.metrics = zk.client().metrics();
        this.reserver = new BlockReserver(zk, name, node, options, nanoTime, rolloverAt);
        this.fetcher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "coord-block-ids-" + name);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long next() throws InterruptedException {
        while (true) {
            if (closed.get()) {
                throw new IllegalStateException(this + " is closed");
            }
            Segment s = current;
            long id = s.cursor.getAndIncrement();
            if (id < s.end) {
                if (id >= s.prefetchFrom && !s.prefetchStarted.get() && s.prefetchStarted.compareAndSet(false, true)) {
                    startReservation();
                }
                return id;
            }
            advance(s);
        }
    }

    /** Starts reserving the next block in the background unless a reservation is already running or done. */
    private CompletableFuture<IdRule.Block> startReservation() {
        while (true) {
            CompletableFuture<IdRule.Block> running = pending.get();
            if (running != null) {
                return running;
            }
            if (closed.get()) {
                throw new IllegalStateException(this + " is closed");
            }
            CompletableFuture<IdRule.Block> started = new CompletableFuture<>();
            if (pending.compareAndSet(null, started)) {
                try {
                    fetcher.execute(() -> {
                        try {
                            started.complete(reserver.reserve());
                        } catch (InterruptedException e) {
                            started.completeExceptionally(e);
                        } catch (RuntimeException | Error e) {
                            started.completeExceptionally(e);
                        }
                    });
                } catch (RuntimeException rejected) {
                    started.completeExceptionally(new IllegalStateException(this + " is closed", rejected));
                }
                return started;
            }
        }
    }

    /** The current block is spent: switch to the next one, waiting for it if it is not reserved yet. */
    private void advance(Segment spent) throws InterruptedException {
        long start = nanoTime.getAsLong();
        long deadline = start + options.timeout().toNanos();
        advanceLock.lockInterruptibly();
        try {
            boolean retried = false;
            while (current == spent) {
                if (closed.get()) {
                    throw new IllegalStateException(this + " is closed");
                }
                CompletableFuture<IdRule.Block> next = startReservation();
                boolean waited = !next.isDone();
                IdRule.Block block;
                try {
                    block = next.get(Math.max(0, deadline - nanoTime.getAsLong()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    throw new CoordTimeoutException("no block of IDs for " + name + " within " + options.timeout()
                            + "; the reservation keeps trying in the background", e);
                } catch (ExecutionException e) {
                    pending.compareAndSet(next, null);
                    Throwable cause = e.getCause() instanceof CompletionException ce ? ce.getCause() : e.getCause();
                    if (closed.get()) {
                        throw new IllegalStateException(this + " is closed", cause);
                    }
                    // A prefetch that failed while nobody needed it yet gets one fresh try for this caller.
                    if (!retried && cause instanceof CoordException c && Attempts.isTransient(c)) {
                        retried = true;
                        continue;
                    }
                    throw cause instanceof CoordException c ? c
                            : new CoordException("reserving a block of IDs for " + name + " failed: " + cause, cause);
                }
                pending.compareAndSet(next, null);
                current = Segment.of(block, options.prefetchAt());
                if (waited) {
                    metrics.increment("coord.ids.block.waits", "name", name);
                    metrics.recordTime("coord.ids.block.wait", Duration.ofNanos(nanoTime.getAsLong() - start), "name", name);
                }
            }
        } finally {
            advanceLock.unlock();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        fetcher.shutdownNow();
        CompletableFuture<IdRule.Block> running = pending.get();
        if (running != null) {
            running.completeExceptionally(new IllegalStateException(this + " is closed"));
        }
        try {
            if (!fetcher.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("block reservation thread of {} did not stop within 5 s", name);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "BlockIds[" + name + (closed.get() ? " closed" : "") + "]";
    }
}
