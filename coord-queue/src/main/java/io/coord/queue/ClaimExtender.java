package io.coord.queue;

import io.coord.CoordException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the claims of a {@link TaskWorker}'s running handlers, on a thread of its own (an extend
 * is a round trip; never on an event thread, never on the handler's): every third of the claim
 * timeout, each claim is extended by the whole timeout, so two missed rounds still keep it. A
 * handler that has run past {@link QueueOptions#maxProcessing()} is taken for hung and no longer
 * extended: its claim times out and another consumer gets the task; if the handler wakes, its
 * ending is refused ({@link ClaimLostException}).
 */
final class ClaimExtender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClaimExtender.class);

    private final Duration timeout;
    private final long maxProcessingNanos;
    /** Running handlers' claims, by when their handler started ({@link System#nanoTime()}). */
    private final Map<TaskClaim<?>, Long> running = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    ClaimExtender(QueueOptions options, String threadName) {
        this.timeout = options.claimTimeout();
        this.maxProcessingNanos = options.maxProcessing().toNanos();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(1, timeout.toMillis() / 3);
        timer.scheduleWithFixedDelay(this::extendAll, period, period, TimeUnit.MILLISECONDS);
    }

    void add(TaskClaim<?> claim) {
        running.put(claim, System.nanoTime());
    }

    void remove(TaskClaim<?> claim) {
        running.remove(claim);
    }

    private void extendAll() {
        long now = System.nanoTime();
        running.forEach((claim, started) -> {
            if (claim.isFinished()) {
                running.remove(claim);
            } else if (now - started > maxProcessingNanos) {
                running.remove(claim);
                LOG.warn("the handler of task {} has run {} ms, past maxProcessing ({}): taken for hung, its claim is no"
                        + " longer extended and times out after {}; the task is redelivered", claim.id(),
                        TimeUnit.NANOSECONDS.toMillis(now - started), Duration.ofNanos(maxProcessingNanos), timeout);
            } else {
                extend(claim);
            }
        });
    }

    private void extend(TaskClaim<?> claim) {
        try {
            claim.extend(timeout);
        } catch (ClaimLostException e) {
            running.remove(claim); // the handler finds out when it ends the claim
            LOG.info("{}", e.getMessage());
        } catch (OutcomeUnknownException | IllegalStateException e) {
            running.remove(claim); // ended meanwhile
        } catch (CoordException e) {
            LOG.debug("could not extend the claim on task {} ({}); trying again next round", claim.id(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("could not extend the claim on task {}; trying again next round", claim.id(), e);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        running.clear();
    }
}
