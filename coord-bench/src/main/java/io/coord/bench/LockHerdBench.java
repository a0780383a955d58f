package io.coord.bench;

import static io.coord.bench.LockBench.PEER;
import static io.coord.bench.LockBench.WAIT;
import static io.coord.bench.LockBench.acquirePeer;
import static io.coord.bench.LockBench.closeAll;
import static io.coord.bench.LockBench.releasePeer;

import io.coord.CoordClient;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import io.coord.test.EmbeddedEnsemble;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * {@code lock.herd}: what one handoff costs the server when many wait. A queue of waiters forms
 * behind a held lock, then runs down, each waiter releasing as soon as it is granted; the figure is
 * the requests the server received (the last client xid of each session from {@code cons}, so
 * pings do not count) divided by the handoffs. A herd would cost about one request per waiter per
 * handoff. Peer: Curator's {@link InterProcessMutex}.
 */
final class LockHerdBench implements Benchmark {
    static final String NAME = "lock.herd";
    static final int WAITERS = 32;
    private static final Pattern CONS = Pattern.compile("sid=0x([0-9a-f]+),.*?lcxid=0x([0-9a-f]+)");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return WAITERS + " queued waiters (--ops sets the count) released in turn, server requests per handoff;"
                + " peer: Curator InterProcessMutex";
    }

    /** One side: start the queue behind a held lock, then let it run down; return requests per handoff. */
    @FunctionalInterface
    private interface Side {
        double handoffCost() throws InterruptedException;
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int port = Integer.parseInt(ctx.connectString().substring(ctx.connectString().lastIndexOf(':') + 1));
        int waiters = ctx.ops(WAITERS);
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        // Each round opens its own clients and closes them: both sides' 2 x 33 sessions at once
        // would pass the server's 60 connections per address.
        try {
            BenchContext.Paired<Double> r = ctx.alternate(round -> {
                List<CoordClient> clients = new ArrayList<>();
                try {
                    List<DistributedLock> locks = LockBench.ourLocks(ctx, waiters + 1, "/bench/lock/herd/ours", clients);
                    List<Long> sessions = clients.stream().map(c -> c.session().id()).toList();
                    return measure(port, sessions, () -> {
                        LockLease held = locks.get(0).acquire(WAIT);
                        List<Future<?>> waiting = new ArrayList<>();
                        for (int i = 1; i <= waiters; i++) {
                            DistributedLock lock = locks.get(i);
                            waiting.add(pool.submit(() -> {
                                lock.acquire(WAIT).close();
                                return null;
                            }));
                            awaitQueue(clients.get(0).curator(), "/bench/lock/herd/ours", i + 1);
                        }
                        return new Queue(held::close, waiting);
                    });
                } finally {
                    closeAll(clients, List.of());
                }
            }, round -> {
                List<CuratorFramework> clients = new ArrayList<>();
                try {
                    List<InterProcessMutex> mutexes = LockBench.peerMutexes(ctx, waiters + 1, "/bench/lock/herd/peer", clients);
                    List<Long> sessions = clients.stream().map(LockHerdBench::sessionId).toList();
                    return measure(port, sessions, () -> {
                        acquirePeer(mutexes.get(0));
                        List<Future<?>> waiting = new ArrayList<>();
                        for (int i = 1; i <= waiters; i++) {
                            InterProcessMutex mutex = mutexes.get(i);
                            waiting.add(pool.submit(() -> {
                                acquirePeer(mutex);
                                releasePeer(mutex);
                                return null;
                            }));
                            awaitQueue(clients.get(0), "/bench/lock/herd/peer", i + 1);
                        }
                        return new Queue(() -> releasePeer(mutexes.get(0)), waiting);
                    });
                } finally {
                    closeAll(List.of(), clients);
                }
            });
            return List.of(Figure.lower(NAME, "requestsPerHandoff", "requests",
                    Stats.median(r.ours(), Double::doubleValue), Stats.median(r.peer(), Double::doubleValue), PEER));
        } finally {
            pool.shutdownNow();
        }
    }

    /** A queue set up behind a held lock: how to let the holder go, and the waiters' completions. */
    private record Queue(Runnable release, List<Future<?>> waiters) {
    }

    @FunctionalInterface
    private interface Setup {
        Queue queue() throws InterruptedException;
    }

    private static double measure(int port, List<Long> sessions, Setup setup) throws InterruptedException {
        Queue queue = setup.queue();
        Map<Long, Long> before = settled(port, sessions);
        queue.release().run();
        for (Future<?> f : queue.waiters()) {
            try {
                f.get(5, TimeUnit.MINUTES);
            } catch (Exception e) {
                throw new IllegalStateException("a waiter failed: " + e.getMessage(), e);
            }
        }
        Map<Long, Long> after = settled(port, sessions);
        long requests = 0;
        for (Long s : sessions) {
            requests += after.get(s) - before.get(s);
        }
        return requests / (double) queue.waiters().size();
    }

    /** The sessions' request counts once nothing is in flight (two equal readings 200 ms apart). */
    private static Map<Long, Long> settled(int port, List<Long> sessions) throws InterruptedException {
        Map<Long, Long> last = requests(port, sessions);
        for (int i = 0; i < 50; i++) {
            Thread.sleep(200);
            Map<Long, Long> now = requests(port, sessions);
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private static Map<Long, Long> requests(int port, List<Long> sessions) {
        String cons = EmbeddedEnsemble.fourLetterWord(port, "cons")
                .orElseThrow(() -> new IllegalStateException("the server did not answer 'cons'"));
        Map<Long, Long> out = new HashMap<>();
        for (String line : cons.split("\n")) {
            Matcher m = CONS.matcher(line);
            if (m.find()) {
                long sid = Long.parseUnsignedLong(m.group(1), 16);
                if (sessions.contains(sid)) {
                    out.put(sid, Long.parseLong(m.group(2), 16));
                }
            }
        }
        for (Long s : sessions) {
            out.putIfAbsent(s, 0L);
        }
        return out;
    }

    static void awaitQueue(CuratorFramework observer, String path, int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (observer.getChildren().forPath(path).size() >= size) {
                    return;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                // not there yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the queue at " + path + " did not reach " + size);
            }
            Thread.sleep(2);
        }
    }

    private static long sessionId(CuratorFramework f) {
        try {
            return f.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
