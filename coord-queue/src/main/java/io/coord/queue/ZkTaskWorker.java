package io.coord.queue;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.SessionExpiredException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code concurrency} named consumer threads. Each loops: claim (in short slices, so shutdown is
 * seen quickly), run the handler, end the claim. Connection trouble while claiming is waited out
 * with a short pause; nothing a handler does can stop the loop. With a claim timeout, one more
 * thread ({@link ClaimExtender}) extends the running handlers' claims.
 */
final class ZkTaskWorker<T> implements TaskWorker {
    private static final Logger LOG = LoggerFactory.getLogger(ZkTaskWorker.class);
    private static final Duration SLICE = Duration.ofMillis(250);

    private final ClaimSource<T> queue;
    private final Handler<T> handler;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicLong handled = new AtomicLong();
    /** Threads inside a handler now (only they get interrupted at the end of the grace). */
    private final Set<Thread> busy = ConcurrentHashMap.newKeySet();
    /** Null without a claim timeout. */
    private final ClaimExtender extender;

    ZkTaskWorker(ClaimSource<T> queue, int concurrency, Handler<T> handler, String name) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
        }
        this.queue = queue;
        this.handler = Objects.requireNonNull(handler, "handler");
        this.extender = queue.options().claimsTimeOut() ? new ClaimExtender(queue.options(), name + "-extender") : null;
        for (int i = 0; i < concurrency; i++) {
            Thread t = new Thread(this::loop, name + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
    }

    private void loop() {
        AtomicReference<ZkTaskClaim<T>> next = new AtomicReference<>();
        try {
            loop(next);
        } finally {
            ZkTaskClaim<T> unused = next.getAndSet(null);
            if (unused != null) {
                unused.close(); // taken with the last completion, never started: give it back
            }
        }
    }

    private void loop(AtomicReference<ZkTaskClaim<T>> next) {
        while (running.get()) {
            ZkTaskClaim<T> taken = next.getAndSet(null);
            if (taken != null) {
                // Taken with the last completion, without claim(): look for timed-out claims here instead.
                try {
                    queue.takeOverTimedOut();
                } catch (InterruptedException e) {
                    taken.close();
                    return;
                }
                run(taken, next);
                continue;
            }
            Optional<TaskClaim<T>> claim;
            try {
                claim = queue.claimNext(SLICE, running::get);
            } catch (InterruptedException e) {
                return; // shutdown interrupts only busy threads; an idle one interrupted means stop
            } catch (ConnectionLostException | SessionExpiredException e) {
                LOG.debug("queue '{}': claiming failed ({}); trying again", queue.name(), e.getMessage());
                pause();
                continue;
            } catch (RuntimeException e) {
                LOG.warn("queue '{}': claiming failed; trying again", queue.name(), e);
                pause();
                continue;
            }
            if (claim.isPresent()) {
                run((ZkTaskClaim<T>) claim.get(), next);
            }
        }
    }

    private void run(ZkTaskClaim<T> claim, AtomicReference<ZkTaskClaim<T>> next) {
        // While the worker runs, completing this task may take the next one in the same transaction.
        claim.takeNextInto(running::get, c -> {
            if (running.get()) {
                next.set(c);
            } else {
                c.close();
            }
        });
        busy.add(Thread.currentThread());
        if (extender != null) {
            extender.add(claim);
        }
        try {
            try {
                handler.handle(claim);
            } catch (InterruptedException e) {
                throw e;
            } catch (ClaimLostException e) {
                throw e;
            } catch (Exception e) {
                if (Thread.currentThread().isInterrupted() && stopping.get()) {
                    release(claim);
                } else {
                    failQuietly(claim, e);
                }
                return;
            }
            if (!claim.isFinished()) {
                retrying(claim, "complete", () -> {
                    claim.complete();
                    return null;
                });
            }
        } catch (InterruptedException e) {
            // the grace ran out: give the task back untouched
            release(claim);
        } catch (ClaimLostException e) {
            LOG.info("queue '{}': {}", queue.name(), e.getMessage());
        } catch (CoordException e) {
            LOG.warn("queue '{}': could not complete task {}; its claim is released", queue.name(), claim.id(), e);
        } finally {
            if (extender != null) {
                extender.remove(claim);
            }
            busy.remove(Thread.currentThread());
            Thread.interrupted(); // an interrupt meant for this task must not hit the next claim
            handled.incrementAndGet();
            claim.close();
        }
    }

    private void failQuietly(TaskClaim<T> claim, Exception cause) {
        if (claim.isFinished()) {
            return;
        }
        try {
            retrying(claim, "fail", () -> claim.fail(String.valueOf(cause)));
        } catch (ClaimLostException lost) {
            LOG.info("queue '{}': {}", queue.name(), lost.getMessage());
        } catch (CoordException e) {
            LOG.warn("queue '{}': could not record the failure of task {}; its claim is released", queue.name(), claim.id(), e);
        }
    }

    /**
     * Runs an ending of {@code claim}, trying again after a connection loss: the outcome was
     * unknown, and trying again either applies it or recognizes that the first try did (see
     * {@link TaskClaim}). Gives up when the claim's session has ended, which the next try reports
     * as a lost claim anyway.
     */
    private <R> R retrying(TaskClaim<T> claim, String what, Callable<R> ending) {
        long deadline = System.nanoTime() + 2 * claimBudget().toNanos();
        while (true) {
            try {
                return ending.call();
            } catch (ConnectionLostException e) {
                if (System.nanoTime() > deadline || claim.session().state().isTerminal()) {
                    throw e;
                }
                LOG.debug("queue '{}': {} of task {} is indeterminate ({}); trying again", queue.name(), what, claim.id(),
                        e.getMessage());
                pause();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CoordException(what + " of task " + claim.id() + " failed: " + e, e);
            }
        }
    }

    private Duration claimBudget() {
        Duration negotiated = queue.negotiatedSessionTimeout();
        return negotiated.isZero() ? Duration.ofSeconds(30) : negotiated;
    }

    private void release(TaskClaim<T> claim) {
        if (!claim.isFinished()) {
            claim.release();
        }
    }

    private void pause() {
        try {
            Thread.sleep(SLICE.toMillis()); // back-off after a connection error, not synchronization
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }

    @Override
    public boolean shutdown(Duration grace) throws InterruptedException {
        stopping.set(true);
        running.set(false);
        queue.wakeAll();
        long deadline = System.nanoTime() + grace.toNanos();
        boolean finished = true;
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
            if (t.isAlive()) {
                finished = false;
            }
        }
        if (!finished) {
            busy.forEach(Thread::interrupt);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(10));
                if (t.isAlive()) {
                    LOG.warn("queue '{}': worker thread {} ignores interrupts; left running", queue.name(), t.getName());
                }
            }
        }
        if (extender != null) {
            extender.close();
        }
        return finished;
    }

    @Override
    public long handled() {
        return handled.get();
    }

    @Override
    public boolean isRunning() {
        return threads.stream().anyMatch(Thread::isAlive);
    }

    @Override
    public void close() {
        try {
            shutdown(queue.options().shutdownGrace());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
