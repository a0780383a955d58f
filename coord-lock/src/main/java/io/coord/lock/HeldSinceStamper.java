package io.coord.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the grant time in nodes held for a while, for inspection. Holds are registered and
 * unregistered with two map operations (no timer per hold, no thread woken), and a sweep on the
 * client's own timer thread (shut down with the client) stamps, four times a second, those held for
 * at least {@link #DELAY}. The sweep is scheduled only while something is held, so short holds —
 * most of them — never cost a write. A stamp is a background write: a sweep never blocks.
 */
final class HeldSinceStamper {
    static final Duration DELAY = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(HeldSinceStamper.class);
    private static final long SWEEP_MS = 250;

    private final ScheduledExecutorService timer;
    private final Map<Holding, Runnable> live = new ConcurrentHashMap<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    HeldSinceStamper(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Stamps {@code holding} with {@code stamp} once it has been held for {@link #DELAY}, unless it ends first. */
    void track(Holding holding, Runnable stamp) {
        live.put(holding, stamp);
        scheduleIfIdle();
    }

    void untrack(Holding holding) {
        live.remove(holding);
    }

    private void scheduleIfIdle() {
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            try {
                timer.schedule(this::sweep, SWEEP_MS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // the client is closing: its holds end with it
            }
        }
    }

    private void sweep() {
        long now = System.nanoTime();
        live.forEach((holding, stamp) -> {
            if (now - holding.grantedNanos() >= DELAY.toNanos() && live.remove(holding, stamp)) {
                try {
                    stamp.run();
                } catch (RuntimeException e) {
                    LOG.debug("could not stamp {}", holding.lease.node(), e);
                }
            }
        });
        scheduled.set(false);
        // A hold registered while this sweep ran either scheduled the next sweep or finds it here.
        if (!live.isEmpty()) {
            scheduleIfIdle();
        }
    }
}
