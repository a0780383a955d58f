package io.coord.bench;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskSpec;
import io.coord.queue.TaskWorker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@code queue.throughput}: Coord's {@link TaskQueue} against Curator's queues, on the same server
 * in the same run, {@value #DEFAULT_TASKS} tasks per round.
 * <ul>
 *   <li>enqueue/s, one producer, one unkeyed task per call: ours (one create named with a unique id,
 *       sent once; the depth re-read every 100 enqueues below half the cap) vs
 *       {@code DistributedQueue.put} (one create); and ours with {@code enqueueAsync}, {@value #IN_FLIGHT}
 *       calls in flight on the producer's one session ({@code enqueueAsync.inflight64}), against the
 *       same sync {@code put};
 *   <li>claim+complete/s with 1 and with 4 consumers (each its own client and session; ours is a
 *       {@link TaskWorker} of concurrency 1 with an empty handler, which completes each task and
 *       claims the next in one transaction): ours vs
 *       {@code DistributedQueue} in safe mode ({@code lockPath}: an item is removed only after its
 *       consumer returned, the semantics comparable to ours). Reference lines: the same against
 *       {@code DistributedQueue} without a lock path (an item is deleted before it is processed) and
 *       {@code SimpleDistributedQueue} (list, read, delete per take);
 *   <li>ours with 1 consumer against raw ZooKeeper create+delete pairs, so the ratio is the share of
 *       the server's bare write limit the queue reaches.
 * </ul>
 * Every side's round starts from a filled queue and ends when the last task is consumed; opening
 * the consumers (and their first read of the queue) is part of the timed round for every side.
 * Sides run in rotating order within each round; figures are medians over rounds.
 */
final class QueueBench implements Benchmark {
    static final String NAME = "queue.throughput";
    static final int DEFAULT_TASKS = 2000;
    /** Each round runs every side over the whole queue; more rounds add minutes, not precision. */
    static final int MAX_ROUNDS = 3;
    private static final String CURATOR_DQ = "curator-DistributedQueue";
    private static final String CURATOR_DQ_SAFE = "curator-DistributedQueue(lockPath)";
    private static final String CURATOR_DQ_UNSAFE = "curator-DistributedQueue(no lockPath)";
    private static final String CURATOR_SIMPLE = "curator-SimpleDistributedQueue";
    private static final String RAW_CREATE_DELETE = "raw-create+delete";
    private static final String OURS_ASYNC = "ours-enqueueAsync";
    /** Calls in flight for the async side (issue 18: at least 10x DistributedQueue.put with 64). */
    static final int IN_FLIGHT = 64;

    private final AtomicInteger paths = new AtomicInteger();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "task queue: enqueue/s (sync, and enqueueAsync with " + IN_FLIGHT + " in flight) and claim+complete/s"
                + " with 1 and 4 consumers; peers: Curator DistributedQueue"
                + " (lockPath), reference lines DistributedQueue without lockPath and SimpleDistributedQueue";
    }

    /** One side of a comparison: runs one round of {@code tasks} and returns tasks per second. */
    @FunctionalInterface
    private interface Side {
        double run(int tasks) throws Exception;
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_TASKS);
        int rounds = Math.min(ctx.rounds(), MAX_ROUNDS);
        List<Figure> figures = new ArrayList<>();

        Map<String, Side> enqueue = new LinkedHashMap<>();
        enqueue.put("ours", t -> oursEnqueue(ctx, t));
        enqueue.put(OURS_ASYNC, t -> oursEnqueueAsync(ctx, t));
        enqueue.put(CURATOR_DQ, t -> dqPut(ctx, t));
        Map<String, List<Double>> e = rounds(ctx, "enqueue", enqueue, n, rounds);
        figures.add(figure("enqueue", e, CURATOR_DQ));
        figures.add(figure("enqueueAsync.inflight" + IN_FLIGHT, e, OURS_ASYNC, CURATOR_DQ));

        for (int consumers : new int[] {1, 4}) {
            Map<String, Side> consume = new LinkedHashMap<>();
            consume.put("ours", t -> oursConsume(ctx, t, consumers));
            consume.put(CURATOR_DQ_SAFE, t -> dqConsume(ctx, t, consumers, true));
            consume.put(CURATOR_DQ_UNSAFE, t -> dqConsume(ctx, t, consumers, false));
            consume.put(CURATOR_SIMPLE, t -> simpleConsume(ctx, t, consumers));
            if (consumers == 1) {
                consume.put(RAW_CREATE_DELETE, t -> rawCreateDelete(ctx, t));
            }
            Map<String, List<Double>> c = rounds(ctx, "claimComplete.c" + consumers, consume, n, rounds);
            String metric = "claimComplete.c" + consumers;
            figures.add(figure(metric, c, CURATOR_DQ_SAFE));
            figures.add(figure(metric + ".refNoLockPath", c, CURATOR_DQ_UNSAFE));
            figures.add(figure(metric + ".refSimpleQueue", c, CURATOR_SIMPLE));
            if (consumers == 1) {
                figures.add(figure(metric + ".vsRawCreateDelete", c, RAW_CREATE_DELETE));
            }
        }
        return figures;
    }

    private static Figure figure(String metric, Map<String, List<Double>> results, String peer) {
        return figure(metric, results, "ours", peer);
    }

    private static Figure figure(String metric, Map<String, List<Double>> results, String ours, String peer) {
        return Figure.higher(NAME, metric, "tasks/s", Stats.median(results.get(ours), d -> d),
                Stats.median(results.get(peer), d -> d), peer);
    }

    /** A warm-up round, then {@code rounds} measured ones, each running every side in a rotating order. */
    private Map<String, List<Double>> rounds(BenchContext ctx, String what, Map<String, Side> sides, int n, int rounds)
            throws InterruptedException {
        List<String> names = new ArrayList<>(sides.keySet());
        Map<String, List<Double>> out = new LinkedHashMap<>();
        names.forEach(s -> out.put(s, new ArrayList<>()));
        for (int round = -1; round < rounds; round++) {
            for (int i = 0; i < names.size(); i++) {
                String side = names.get(Math.floorMod(i + round, names.size()));
                double rate;
                try {
                    rate = sides.get(side).run(n);
                } catch (InterruptedException ie) {
                    throw ie;
                } catch (Exception ex) {
                    throw new IllegalStateException(NAME + " " + what + " side " + side + " failed: " + ex, ex);
                }
                if (round >= 0) {
                    out.get(side).add(rate);
                }
                ctx.progress(String.format("  %s %s round %d %s: %.0f tasks/s", NAME, what, round, side, rate));
            }
        }
        return out;
    }

    private String fresh(String side) {
        return "/bench/queue/" + side + "-" + paths.incrementAndGet();
    }

    private static byte[] item(int i) {
        return ("{\"id\":" + i + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** The payload type of our side: what a user would enqueue. */
    record Item(int id) {
    }

    /**
     * A cap well above the round's tasks, as a queue in normal use has: from half its cap on, an
     * enqueue reads the depth first (the exact cap), one more round trip that is not what this
     * compares (a cap equal to the round's tasks made half the enqueues pay it).
     */
    private static QueueOptions options(int n) {
        return QueueOptions.builder().depthCap(Math.min(QueueOptions.MAX_DEPTH_CAP,
                Math.max(QueueOptions.DEFAULT_DEPTH_CAP, 2 * n + 2))).build();
    }

    private double oursEnqueue(BenchContext ctx, int n) throws Exception {
        try (CoordClient client = ctx.newCoordClient();
             TaskQueue<Item> q = TaskQueue.open(client, name(fresh("ours")), Codec.json(Item.class), options(n))) {
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                q.enqueue(new Item(i));
            }
            return n / ((System.nanoTime() - start) / 1e9);
        }
    }

    /**
     * {@code enqueueAsync} with {@value #IN_FLIGHT} calls in flight from one producer (one client,
     * one session): a new call is made as each one completes. Completions run on the completing
     * thread (a direct executor): the callback only frees a slot.
     */
    private double oursEnqueueAsync(BenchContext ctx, int n) throws Exception {
        try (CoordClient client = ctx.newCoordClient();
             TaskQueue<Item> q = TaskQueue.open(client, name(fresh("oursasync")), Codec.json(Item.class), options(n))) {
            Semaphore slots = new Semaphore(IN_FLIGHT);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Executor direct = Runnable::run;
            long start = System.nanoTime();
            for (int i = 0; i < n && failure.get() == null; i++) {
                if (!slots.tryAcquire(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("enqueueAsync: no call completed in 10 minutes");
                }
                q.enqueueAsync(new Item(i), TaskSpec.defaults(), direct).whenComplete((r, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    }
                    slots.release();
                });
            }
            if (!slots.tryAcquire(IN_FLIGHT, 10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("enqueueAsync: the last calls did not complete in 10 minutes");
            }
            long elapsed = System.nanoTime() - start;
            if (failure.get() != null) {
                throw new IllegalStateException("an enqueueAsync failed", failure.get());
            }
            return n / (elapsed / 1e9);
        }
    }

    private double dqPut(BenchContext ctx, int n) throws Exception {
        try (CoordClient client = ctx.newCoordClient()) {
            DistributedQueue<byte[]> q = QueueBuilder.builder(client.curator(), null, BYTES, fresh("dq"))
                    .putInBackground(false).buildQueue();
            q.start();
            try {
                long start = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    q.put(item(i));
                }
                return n / ((System.nanoTime() - start) / 1e9);
            } finally {
                q.close();
            }
        }
    }

    /** Queue names are one segment: the benchmark's paths flattened. */
    private static String name(String path) {
        return path.substring(1).replace('/', '_');
    }

    private double oursConsume(BenchContext ctx, int n, int consumers) throws Exception {
        String queueName = name(fresh("ours"));
        List<CoordClient> clients = new ArrayList<>();
        try {
            try (CoordClient producer = ctx.newCoordClient();
                 TaskQueue<Item> q = TaskQueue.open(producer, queueName, Codec.json(Item.class), options(n))) {
                List<Item> batch = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    batch.add(new Item(i));
                    if (batch.size() == 200 || i == n - 1) {
                        q.enqueueAll(batch);
                        batch.clear();
                    }
                }
            }
            for (int c = 0; c < consumers; c++) {
                clients.add(ctx.newCoordClient());
            }
            List<TaskQueue<Item>> queues = new ArrayList<>();
            List<TaskWorker> workers = new ArrayList<>();
            long start = System.nanoTime();
            try {
                for (CoordClient client : clients) {
                    TaskQueue<Item> q = TaskQueue.open(client, queueName, Codec.json(Item.class), options(n));
                    queues.add(q);
                    workers.add(q.work(1, claim -> { }));
                }
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
                while (workers.stream().mapToLong(TaskWorker::handled).sum() < n) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("only " + workers.stream().mapToLong(TaskWorker::handled).sum()
                                + " of " + n + " tasks consumed in 10 minutes");
                    }
                    Thread.sleep(1); // polling the count; the workers run on their own threads
                }
                return n / ((System.nanoTime() - start) / 1e9);
            } finally {
                for (TaskWorker w : workers) {
                    w.shutdown(java.time.Duration.ofSeconds(10));
                }
                queues.forEach(TaskQueue::close);
            }
        } finally {
            clients.forEach(CoordClient::close);
        }
    }

    private static final QueueSerializer<byte[]> BYTES = new QueueSerializer<>() {
        @Override
        public byte[] serialize(byte[] item) {
            return item;
        }

        @Override
        public byte[] deserialize(byte[] bytes) {
            return bytes;
        }
    };

    private double dqConsume(BenchContext ctx, int n, int consumers, boolean safe) throws Exception {
        String path = fresh(safe ? "dqsafe" : "dqunsafe");
        List<CoordClient> clients = new ArrayList<>();
        List<DistributedQueue<byte[]>> queues = new ArrayList<>();
        try {
            try (CoordClient producer = ctx.newCoordClient()) {
                DistributedQueue<byte[]> q = QueueBuilder.builder(producer.curator(), null, BYTES, path)
                        .putInBackground(false).buildQueue();
                q.start();
                try {
                    List<byte[]> batch = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        batch.add(item(i));
                        if (batch.size() == 200 || i == n - 1) {
                            // putMulti is one item holding many messages; put one by one, as a producer would
                            for (byte[] b : batch) {
                                q.put(b);
                            }
                            batch.clear();
                        }
                    }
                } finally {
                    q.close();
                }
            }
            for (int c = 0; c < consumers; c++) {
                clients.add(ctx.newCoordClient());
            }
            CountDownLatch consumed = new CountDownLatch(n);
            QueueConsumer<byte[]> consumer = new QueueConsumer<>() {
                @Override
                public void consumeMessage(byte[] message) {
                    consumed.countDown();
                }

                @Override
                public void stateChanged(CuratorFramework client, ConnectionState newState) {
                }
            };
            long start = System.nanoTime();
            for (CoordClient client : clients) {
                QueueBuilder<byte[]> b = QueueBuilder.builder(client.curator(), consumer, BYTES, path);
                if (safe) {
                    b.lockPath(path + "-locks");
                }
                DistributedQueue<byte[]> q = b.buildQueue();
                queues.add(q);
                q.start();
            }
            if (!consumed.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("DistributedQueue consumed only " + (n - consumed.getCount()) + " of " + n);
            }
            return n / ((System.nanoTime() - start) / 1e9);
        } finally {
            for (DistributedQueue<byte[]> q : queues) {
                q.close();
            }
            clients.forEach(CoordClient::close);
        }
    }

    private double simpleConsume(BenchContext ctx, int n, int consumers) throws Exception {
        String path = fresh("simple");
        List<CoordClient> clients = new ArrayList<>();
        try {
            try (CoordClient producer = ctx.newCoordClient()) {
                SimpleDistributedQueue q = new SimpleDistributedQueue(producer.curator(), path);
                for (int i = 0; i < n; i++) {
                    q.offer(item(i));
                }
            }
            for (int c = 0; c < consumers; c++) {
                clients.add(ctx.newCoordClient());
            }
            AtomicInteger done = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            long start = System.nanoTime();
            for (CoordClient client : clients) {
                SimpleDistributedQueue q = new SimpleDistributedQueue(client.curator(), path);
                Thread t = new Thread(() -> {
                    try {
                        while (done.get() < n && failure.get() == null) {
                            if (q.poll(100, TimeUnit.MILLISECONDS) != null) {
                                done.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "bench-simple-consumer");
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            long elapsed = System.nanoTime() - start;
            if (failure.get() != null) {
                throw new IllegalStateException("a SimpleDistributedQueue consumer failed", failure.get());
            }
            return n / (elapsed / 1e9);
        } finally {
            clients.forEach(CoordClient::close);
        }
    }

    /** The server's bare limit for a take-and-give-back: synchronous create+delete pairs from one raw client. */
    private double rawCreateDelete(BenchContext ctx, int n) throws Exception {
        ZooKeeper raw = ctx.newZooKeeper();
        try {
            String parent = fresh("raw");
            Nodes.ensure(raw, parent);
            byte[] value = item(0);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                String path = parent + "/n-" + i;
                try {
                    raw.create(path, value, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    raw.delete(path, -1);
                } catch (KeeperException e) {
                    throw new IllegalStateException("raw create/delete of " + path + " failed: " + e.getMessage(), e);
                }
            }
            return n / ((System.nanoTime() - start) / 1e9);
        } finally {
            raw.close();
        }
    }
}
