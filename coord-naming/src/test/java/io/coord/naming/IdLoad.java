package io.coord.naming;

import io.coord.CoordClient;
import io.coord.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs several clients, each on its own thread and its own connection, taking IDs concurrently. */
final class IdLoad {
    /** An ID generator under test, opened on one client. */
    interface Source extends AutoCloseable {
        long next() throws InterruptedException;

        @Override
        default void close() {
        }
    }

    interface Factory {
        Source open(CoordClient client) throws Exception;
    }

    /** Something to run while the clients work (a fault), after {@code afterIds} IDs in all. */
    interface Fault {
        void inject() throws Exception;
    }

    private IdLoad() {
    }

    static IdHistory run(ZooKeeperExtension zk, int clients, int perClient, Factory factory) throws Exception {
        return run(zk, clients, perClient, factory, -1, null);
    }

    static IdHistory run(ZooKeeperExtension zk, int clients, int perClient, Factory factory, int faultAfter, Fault fault)
            throws Exception {
        IdHistory history = new IdHistory();
        List<Source> sources = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            sources.add(factory.open(zk.newClient()));
        }
        java.util.concurrent.atomic.AtomicInteger total = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch faultPoint = new java.util.concurrent.CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long start = System.nanoTime();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                Source source = sources.get(c);
                futures.add(pool.submit(() -> {
                    List<IdHistory.Op> mine = new ArrayList<>(perClient);
                    for (int i = 0; i < perClient; i++) {
                        long invoked = System.nanoTime();
                        long id = source.next();
                        mine.add(new IdHistory.Op(client, id, invoked, System.nanoTime()));
                        if (total.incrementAndGet() == faultAfter) {
                            faultPoint.countDown();
                        }
                    }
                    history.addAll(mine);
                    return null;
                }));
            }
            if (fault != null) {
                if (!faultPoint.await(120, TimeUnit.SECONDS)) {
                    throw new AssertionError("the clients did not reach " + faultAfter + " IDs within 120 s");
                }
                fault.inject();
            }
            for (Future<?> f : futures) {
                f.get(300, TimeUnit.SECONDS);
            }
            history.elapsed(System.nanoTime() - start);
            return history;
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
            sources.forEach(Source::close);
        }
    }
}
