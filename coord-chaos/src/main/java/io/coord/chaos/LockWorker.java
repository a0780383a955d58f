package io.coord.chaos;

import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import io.coord.lock.LockOptions;
import io.coord.lock.Locks;
import io.coord.test.History;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.apache.zookeeper.data.Stat;

/**
 * Worker side of the lock scenario: one lock cycle per {@code cycle} command.
 * <pre>
 * C: cycle            W: HELD &lt;token&gt;            (or ERR info|fail &lt;exception&gt;)
 * C: go               W: BEGIN &lt;token&gt;           first write at the controller's resource
 * C: ACCEPTED         W: INCR ok &lt;n&gt;|info|fail   read-modify-write of the counter node
 *                     W: END &lt;token&gt;             last write at the resource
 * C: ACCEPTED|REJECTED
 * C: REJECTED         W: HELD-CHECK yes|no|unknown  (after a refused BEGIN: is our node still ours?)
 *                     W: DONE                     lock released
 *                     W: LOST &lt;token&gt;            at any time: the lease of that token ended LOST
 * </pre>
 * The {@code LOST} line comes from the lease's own end ({@link LockLease#ended()}), on a thread
 * of its own, so the controller can time how soon a holder learns it lost the lock.
 * It never asks its lease before writing: a paused holder that wakes up writes as if it still
 * held the lock, and only the fence may stop it. Argument 0: {@code fenced} (the counter is
 * written with {@code multi(check(our lock node), setData)}) or {@code unfenced} (plain setData,
 * the control).
 */
final class LockWorker implements WorkerLogic {
    private static final Duration STEP = Duration.ofSeconds(120);
    /** Sends the LOST lines: never on ZooKeeper's or Coord's event thread. */
    private static final Executor REPORTER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "lock-worker-lost-reporter");
        t.setDaemon(true);
        return t;
    });

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        boolean fenced = !"unfenced".equals(ctx.arg(0));
        DistributedLock lock = Locks.mutex(ctx.client(), LockScenario.LOCK, LockOptions.builder().ownerName(ctx.name()).build());
        WorkerIo io = ctx.io();
        while (true) {
            String cmd = io.next(Duration.ofHours(24));
            switch (cmd) {
                case "exit" -> {
                    return;
                }
                case "cycle" -> cycle(ctx, lock, fenced);
                default -> io.send("ERR fail unknown-command:" + cmd);
            }
        }
    }

    private static void cycle(WorkerContext ctx, DistributedLock lock, boolean fenced) throws InterruptedException {
        WorkerIo io = ctx.io();
        LockLease lease;
        try {
            lease = lock.acquire(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            io.send("ERR " + outcome(e) + " " + e.getClass().getSimpleName());
            return;
        }
        try {
            long token = lease.token().value();
            lease.ended().thenAcceptAsync(state -> {
                if (state == LeaseState.LOST) {
                    io.send("LOST " + token);
                }
            }, REPORTER);
            io.send("HELD " + token);
            expect(io, "go");
            io.send("BEGIN " + token);
            if (expect(io, "ACCEPTED", "REJECTED").equals("REJECTED")) {
                io.send("HELD-CHECK " + stillOurs(ctx.client(), lease));
            } else {
                io.send(increment(ctx.client(), lease, fenced));
                io.send("END " + token);
                expect(io, "ACCEPTED", "REJECTED");
            }
        } finally {
            try {
                lease.close();
            } catch (RuntimeException e) {
                // a lost lease's node is gone with its session; nothing else to release
            }
        }
        io.send("DONE");
    }

    private static String expect(WorkerIo io, String... allowed) throws InterruptedException {
        String line = io.next(STEP);
        for (String a : allowed) {
            if (a.equals(line)) {
                return line;
            }
        }
        throw new IllegalStateException("expected one of " + String.join("/", allowed) + " from the controller, got '" + line + "'");
    }

    /** The critical section: read the counter, write it plus one (fenced or not). */
    private static String increment(CoordClient client, LockLease lease, boolean fenced) throws InterruptedException {
        long n;
        try {
            n = Long.parseLong(new String(client.curator().getData().forPath(LockScenario.COUNTER.value()), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return "INCR fail read:" + e.getClass().getSimpleName(); // nothing was written
        }
        byte[] next = Long.toString(n + 1).getBytes(StandardCharsets.UTF_8);
        try {
            if (fenced) {
                lease.guardedSetData(LockScenario.COUNTER, next);
            } else {
                client.curator().setData().forPath(LockScenario.COUNTER.value(), next);
            }
            return "INCR ok " + (n + 1);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return "INCR " + outcome(e) + " " + e.getClass().getSimpleName();
        }
    }

    /** Whether the lease's node still exists and belongs to the client's current session. */
    private static String stillOurs(CoordClient client, LockLease lease) throws InterruptedException {
        try {
            Stat s = client.curator().checkExists().forPath(lease.node().value());
            long session = client.curator().getZookeeperClient().getZooKeeper().getSessionId();
            return s != null && s.getEphemeralOwner() == session ? "yes" : "no";
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return "unknown";
        }
    }

    static String outcome(Throwable e) {
        return History.classify(e) == History.Outcome.INFO ? "info" : "fail";
    }
}
