package io.coord.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the grant time in nodes held for a while, for inspection. Holds are registered and
 * unregistered with two map operations (no timer per hold, no thread woken), and one daemon thread
 * for the whole process sweeps them four times a second, stamping those held for at least
 * {@link #DELAY}. The thread exists only while something is held (it ends after ten idle seconds
 * and starts again with the next hold), so short holds — most of them — never cost a write.
 */
final class HeldSinceStamper {
    static final Duration DELAY = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(HeldSinceStamper.class);
    private static final long SWEEP_MS = 250;
    private static final long IDLE_MS = 10_000;
    private static final Map<Holding, Runnable> LIVE = new ConcurrentHashMap<>();
    private static final AtomicBoolean RUNNING = new AtomicBoolean();

    private HeldSinceStamper() {
    }

    /** Stamps {@code holding} with {@code stamp} once it has been held for {@link #DELAY}, unless it ends first. */
    static void track(Holding holding, Runnable stamp) {
        LIVE.put(holding, stamp);
        if (!RUNNING.get() && RUNNING.compareAndSet(false, true)) {
            Thread t = new Thread(HeldSinceStamper::sweep, "coord-lock-stamper");
            t.setDaemon(true);
            t.start();
        }
    }

    static void untrack(Holding holding) {
        LIVE.remove(holding);
    }

    private static void sweep() {
        long idle = 0;
        while (true) {
            try {
                Thread.sleep(SWEEP_MS);
            } catch (InterruptedException e) {
                RUNNING.set(false);
                return;
            }
            if (LIVE.isEmpty()) {
                idle += SWEEP_MS;
                if (idle >= IDLE_MS) {
                    RUNNING.set(false);
                    // A hold registered just now either started a new sweeper or finds this one again.
                    if (LIVE.isEmpty() || !RUNNING.compareAndSet(false, true)) {
                        return;
                    }
                    idle = 0;
                }
                continue;
            }
            idle = 0;
            long now = System.nanoTime();
            LIVE.forEach((holding, stamp) -> {
                if (now - holding.grantedNanos() >= DELAY.toNanos() && LIVE.remove(holding, stamp)) {
                    try {
                        stamp.run();
                    } catch (RuntimeException e) {
                        LOG.debug("could not stamp {}", holding.lease.node(), e);
                    }
                }
            });
        }
    }
}
