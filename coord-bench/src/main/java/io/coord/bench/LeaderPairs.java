package io.coord.bench;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.election.LeaderTask;
import io.coord.election.Leadership;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Two (or N, for {@code election.scale}) candidates of one election, each on its own client, for the failover benchmarks: ours
 * (coord-election, leader-task style) and the peer (Curator's {@link LeaderLatch}). Each records,
 * on the thread that runs it, the moment its leader callback starts. On both sides the participant
 * that left joins again only after the measurement, with a new handle (a new latch), so that its
 * re-join never competes with the failover being timed.
 */
final class LeaderPairs {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private LeaderPairs() {
    }

    /** A leader callback that started: who (0 or 1) and when (nanoTime). */
    record Started(int who, long atNanos, Leadership leadership) {
    }

    /** What a failover benchmark needs from either side. */
    interface Pair extends AutoCloseable {
        /** The current leader; waits for the first one. */
        Started leader() throws InterruptedException;

        /** Waits until all candidates are in line (the one that left has joined again). */
        void awaitBothInLine() throws InterruptedException;

        /** Makes the current leader leave: ours resigns (or closes), the peer closes its latch. */
        void leave(Started leader, boolean close) throws InterruptedException;

        /** Waits for the next leader's callback. */
        Started next() throws InterruptedException;

        /** After a measured leave with close: the participant joins again. */
        void rejoin(Started left) throws InterruptedException;

        /** The client of participant {@code who}, to end its session from outside. */
        ZooKeeper zooKeeper(int who) throws Exception;

        @Override
        void close();
    }

    static final class Ours implements Pair {
        private final CoordClient[] clients;
        private final Election[] elections;
        private final String name;
        private final LinkedBlockingQueue<Started> started = new LinkedBlockingQueue<>();
        private Started current;

        Ours(BenchContext ctx, String name) throws InterruptedException {
            this(ctx, name, 2);
        }

        /** {@code candidates} candidates, each its own client, joining one after another (the first leads). */
        Ours(BenchContext ctx, String name, int candidates) throws InterruptedException {
            this.name = name;
            this.clients = new CoordClient[candidates];
            this.elections = new Election[candidates];
            try {
                for (int i = 0; i < candidates; i++) {
                    clients[i] = ctx.newCoordClient();
                    join(i);
                }
            } catch (InterruptedException | RuntimeException e) {
                close(); // the ones already joined
                throw e;
            }
        }

        private void join(int who) {
            if (elections[who] != null) {
                elections[who].close();
            }
            elections[who] = Election.open(clients[who], name, ElectionOptions.builder().participantId("ours-" + who).build());
            elections[who].lead(task(who));
        }

        private LeaderTask task(int who) {
            return l -> {
                started.add(new Started(who, System.nanoTime(), l));
                new CountDownLatch(1).await(); // lead until resigned, closed or lost
            };
        }

        @Override
        public Started leader() throws InterruptedException {
            if (current == null) {
                current = poll(started);
            }
            return current;
        }

        @Override
        public void awaitBothInLine() throws InterruptedException {
            await(() -> {
                try {
                    return elections[0].candidates().size() == elections.length;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return true;
                }
            });
        }

        @Override
        public void leave(Started leader, boolean close) {
            if (close) {
                elections[leader.who()].close();
            } else {
                leader.leadership().resign();
            }
        }

        @Override
        public Started next() throws InterruptedException {
            current = poll(started);
            return current;
        }

        @Override
        public void rejoin(Started left) {
            join(left.who());
        }

        @Override
        public ZooKeeper zooKeeper(int who) throws Exception {
            return clients[who].curator().getZookeeperClient().getZooKeeper();
        }

        @Override
        public void close() {
            for (int i = 0; i < clients.length; i++) {
                if (elections[i] != null) {
                    elections[i].close();
                }
                if (clients[i] != null) {
                    clients[i].close();
                }
            }
        }
    }

    static final class Peer implements Pair {
        private final CuratorFramework[] clients;
        private final LeaderLatch[] latches;
        private final String path;
        private final LinkedBlockingQueue<Started> started = new LinkedBlockingQueue<>();
        private Started current;

        Peer(BenchContext ctx, String path) throws InterruptedException {
            this(ctx, path, 2);
        }

        /** {@code candidates} latches, each on its own Curator client, started one after another. */
        Peer(BenchContext ctx, String path, int candidates) throws InterruptedException {
            this.path = path;
            this.clients = new CuratorFramework[candidates];
            this.latches = new LeaderLatch[candidates];
            try {
                for (int i = 0; i < candidates; i++) {
                    clients[i] = CuratorFrameworkFactory.newClient(ctx.connectString(), (int) BenchContext.SESSION_TIMEOUT.toMillis(),
                            (int) BenchContext.CONNECT_TIMEOUT.toMillis(), new ExponentialBackoffRetry(1000, 3));
                    clients[i].start();
                    if (!clients[i].blockUntilConnected((int) BenchContext.CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException("Curator client could not connect to " + ctx.connectString());
                    }
                    join(i);
                }
            } catch (InterruptedException | RuntimeException e) {
                close(); // the ones already started
                throw e;
            }
        }

        private void join(int who) {
            LeaderLatch old = latches[who];
            if (old != null && old.getState() == LeaderLatch.State.STARTED) {
                try {
                    old.close();
                } catch (IOException e) {
                    throw new IllegalStateException("could not close a LeaderLatch", e);
                }
            }
            LeaderLatch latch = new LeaderLatch(clients[who], path, "peer-" + who);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    started.add(new Started(who, System.nanoTime(), null));
                }

                @Override
                public void notLeader() {
                }
            });
            try {
                latch.start();
            } catch (Exception e) {
                throw new IllegalStateException("could not start a LeaderLatch on " + path, e);
            }
            latches[who] = latch;
        }

        @Override
        public Started leader() throws InterruptedException {
            if (current == null) {
                current = poll(started);
            }
            return current;
        }

        @Override
        public void awaitBothInLine() throws InterruptedException {
            await(() -> {
                try {
                    return clients[0].getChildren().forPath(path).size() == latches.length;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
        }

        @Override
        public void leave(Started leader, boolean close) {
            try {
                latches[leader.who()].close();
            } catch (IOException e) {
                throw new IllegalStateException("could not close a LeaderLatch", e);
            }
        }

        @Override
        public Started next() throws InterruptedException {
            current = poll(started);
            return current;
        }

        @Override
        public void rejoin(Started left) {
            join(left.who());
        }

        @Override
        public ZooKeeper zooKeeper(int who) throws Exception {
            return clients[who].getZookeeperClient().getZooKeeper();
        }

        @Override
        public void close() {
            for (int i = 0; i < clients.length; i++) {
                try {
                    if (latches[i] != null && latches[i].getState() == LeaderLatch.State.STARTED) {
                        latches[i].close();
                    }
                } catch (IOException ignored) {
                    // closing anyway
                }
                if (clients[i] != null) {
                    clients[i].close();
                }
            }
        }
    }

    private static Started poll(LinkedBlockingQueue<Started> started) throws InterruptedException {
        Started s = started.poll(WAIT_NANOS, TimeUnit.NANOSECONDS);
        if (s == null) {
            throw new IllegalStateException("no leader callback within " + TimeUnit.NANOSECONDS.toSeconds(WAIT_NANOS) + " s");
        }
        return s;
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the candidate that left did not join again within 30 s");
            }
            Thread.sleep(1);
        }
    }

    /**
     * Ends the session of {@code zk} on the server, as an expiry does: a second handle with the
     * same session id and password connects; closing it (the timed part, by the caller) ends the
     * session.
     */
    static ZooKeeper twin(String connectString, ZooKeeper zk) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString, zk.getSessionTimeout(), e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        if (!connected.await(10, TimeUnit.SECONDS)) {
            twin.close();
            throw new IllegalStateException("twin handle did not connect");
        }
        return twin;
    }

    static String path(String name) {
        return CoordPath.of("bench", name).value();
    }
}
