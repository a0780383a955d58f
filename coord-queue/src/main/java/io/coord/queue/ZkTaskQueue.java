package io.coord.queue;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.ForeignNodeWarnings;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.KeeperException;
import org.slf4j.LoggerFactory;

/** The queue: enqueue through {@link Enqueuer}, claims through {@link Claimer}, operator calls through {@link QueueAdmin}. */
final class ZkTaskQueue<T> implements TaskQueue<T>, ClaimSource<T> {
    private static final AtomicInteger WORKERS = new AtomicInteger();

    final Zk zk;
    final QueueLayout layout;
    final TaskCodec<T> codec;
    final QueueOptions options;
    final QueueMetrics metrics;
    /** Nodes in the queue's directories that are not the queue's: logged once each, listed by {@link #stats()}. */
    final ForeignNodeWarnings foreign;
    final KeyWindow keyWindow;
    private final Enqueuer<T> enqueuer;
    private final Claimer<T> claimer;
    private final PoisonTasks<T> poison;
    private final QueueAdmin<T> admin;
    private final Object startLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile TaskIndex index;
    private QueueWatch watch;
    /** Set by a partitioned queue before first use: its shared wake-up, and whether a completion may take its next task here. */
    private volatile Runnable onIndexChange;
    private volatile BooleanSupplier nextHere = () -> true;

    private ZkTaskQueue(Zk zk, QueueLayout layout, Codec<T> payloadCodec, QueueOptions options) {
        this(zk, layout, payloadCodec, options, true);
    }

    /** {@code depthGauge}: false for a partition, whose queue registers one gauge over all of them. */
    private ZkTaskQueue(Zk zk, QueueLayout layout, Codec<T> payloadCodec, QueueOptions options, boolean depthGauge) {
        this.zk = zk;
        this.layout = layout;
        this.options = options;
        this.codec = new TaskCodec<>(layout.name, payloadCodec, options.maxTaskBytes());
        this.metrics = new QueueMetrics(zk.client().metrics(), layout.name);
        this.foreign = new ForeignNodeWarnings(LoggerFactory.getLogger(TaskQueue.class), "queue '" + layout.name + "'");
        this.keyWindow = new KeyWindow(zk, layout, options);
        this.enqueuer = new Enqueuer<>(this);
        this.claimer = new Claimer<>(this);
        this.poison = new PoisonTasks<>(this);
        this.admin = new QueueAdmin<>(this);
        if (depthGauge) {
            metrics.depthGauge(this::cachedDepth);
        }
    }

    static <T> TaskQueue<T> open(CoordClient client, String name, Codec<T> payloadCodec, QueueOptions options) {
        Objects.requireNonNull(payloadCodec, "payloadCodec");
        Objects.requireNonNull(options, "options");
        Zk zk = Zk.of(client);
        QueueLayout layout = new QueueLayout(name);
        // Before creating anything: a refused open leaves the other library's queue as it found it.
        List<String> rootChildren = rootChildren(zk, layout);
        List<String> curatorItems = rootChildren.stream().filter(QueueLayout::isCuratorItem).sorted().toList();
        if (!curatorItems.isEmpty()) {
            throw QueueLayout.curatorItemsAt(layout, curatorItems);
        }
        int partitions = Partitions.recordOrCheck(zk, layout, options.partitions(), rootChildren);
        if (options.partitions() != partitions) {
            options = options.toBuilder().partitions(partitions).build(); // "as recorded" (0) resolved
        }
        if (partitions > 1) {
            List<ZkTaskQueue<T>> parts = new java.util.ArrayList<>(partitions);
            for (int i = 0; i < partitions; i++) {
                QueueLayout part = layout.partition(i);
                for (CoordPath dir : List.of(part.tasks, part.claims, part.dead, part.keys, part.completed)) {
                    ensure(zk, dir);
                }
                parts.add(new ZkTaskQueue<>(zk, part, payloadCodec, options, false));
            }
            PartitionedTaskQueue<T> queue = new PartitionedTaskQueue<>(layout, options, parts);
            parts.get(0).foreign.check(layout.root, rootChildren, c -> QueueLayout.isPartitionDir(c, partitions),
                    "p0.." + QueueLayout.PARTITION_PREFIX + (partitions - 1));
            return queue;
        }
        return openSingle(zk, layout, payloadCodec, options, rootChildren);
    }

    private static <T> ZkTaskQueue<T> openSingle(Zk zk, QueueLayout layout, Codec<T> payloadCodec, QueueOptions options,
                                                 List<String> rootChildren) {
        for (CoordPath dir : List.of(layout.tasks, layout.claims, layout.dead, layout.keys, layout.completed)) {
            ensure(zk, dir);
        }
        ZkTaskQueue<T> queue = new ZkTaskQueue<>(zk, layout, payloadCodec, options);
        queue.foreign.check(layout.root, rootChildren, QueueLayout::isRootChild, String.join(", ", QueueLayout.ROOT_CHILDREN));
        return queue;
    }

    /** Tasks this process's cache knows (pending, processing, poison); NaN before the cache starts. */
    double cachedDepth() {
        TaskIndex i = index;
        return i == null ? Double.NaN : i.depth();
    }

    /** A partitioned queue's hooks for this partition (before its first claim). */
    void partitionHooks(Runnable onChange, BooleanSupplier takesNextHere) {
        this.onIndexChange = onChange;
        this.nextHere = takesNextHere;
    }

    /** Whether a completion may claim its next task in this directory (always, unless a partitioned queue says another is older). */
    boolean takesNextHere() {
        return nextHere.getAsBoolean();
    }

    /** This directory's first claimable task (lane, czxid), or null; starts the index. */
    TaskIndex.Head head(long nowMillis) {
        return index().head(nowMillis);
    }

    @Override
    public Optional<TaskClaim<T>> claimNext(Duration timeout, BooleanSupplier keepWaiting) throws InterruptedException {
        return claimer.claim(timeout, keepWaiting);
    }

    @Override
    public boolean claimNextAsync(java.util.function.BiConsumer<Optional<TaskClaim<T>>, Throwable> done) {
        return claimer.claimAsync(done);
    }

    @Override
    public void takeOverTimedOut() throws InterruptedException {
        claimer.takeOverTimedOut();
    }

    @Override
    public void wakeAll() {
        index().wakeAll();
    }

    @Override
    public Duration negotiatedSessionTimeout() {
        return zk.client().negotiatedSessionTimeout();
    }

    @Override
    public Runnable addWaiter(Runnable waiter) {
        return index().addWaiter(waiter);
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    @Override
    public Zk zk() {
        return zk;
    }

    boolean isClosed() {
        return closed.get();
    }

    private static List<String> rootChildren(Zk zk, QueueLayout layout) {
        return zk.callUninterruptibly(layout.root, () -> {
            try {
                return zk.curator().getChildren().forPath(layout.root.value());
            } catch (KeeperException.NoNodeException none) {
                return List.<String>of();
            }
        });
    }

    /** Persistent, not containers: an emptied container may be reaped, and a re-created parent restarts the sequence. */
    private static void ensure(Zk zk, CoordPath dir) {
        zk.callUninterruptibly(dir, () -> {
            if (zk.curator().checkExists().forPath(dir.value()) == null) {
                try {
                    zk.curator().create().creatingParentsIfNeeded().forPath(dir.value());
                } catch (KeeperException.NodeExistsException raced) {
                    // another process made it first
                }
            }
            return null;
        });
    }

    /** The watched index, started on first use (producers never need it). */
    TaskIndex index() {
        TaskIndex i = index;
        if (i != null) {
            return i;
        }
        synchronized (startLock) {
            if (index == null) {
                if (closed.get()) {
                    throw new IllegalStateException("queue '" + layout.name + "' is closed");
                }
                TaskIndex fresh = new TaskIndex();
                fresh.onChange(onIndexChange);
                QueueWatch w = new QueueWatch(zk.curator(), layout, codec, fresh, foreign);
                try {
                    w.start(zk.client().settings().connectionTimeout());
                } catch (InterruptedException e) {
                    w.close();
                    Thread.currentThread().interrupt();
                    throw new CoordException("interrupted while starting the watch of queue '" + layout.name + "'", e);
                } catch (RuntimeException e) {
                    w.close();
                    throw e;
                }
                watch = w;
                index = fresh;
            }
            return index;
        }
    }

    PoisonTasks<T> poison() {
        return poison;
    }

    Claimer<T> claimer() {
        return claimer;
    }

    @Override
    public String name() {
        return layout.name;
    }

    @Override
    public QueueOptions options() {
        return options;
    }

    @Override
    public EnqueueResult submit(T payload, TaskSpec spec) {
        return enqueuer.enqueue(payload, Objects.requireNonNull(spec, "spec"));
    }

    @Override
    public List<TaskId> enqueueAll(List<? extends T> batch, TaskSpec spec) {
        Objects.requireNonNull(batch, "batch");
        return enqueuer.enqueueAll(batch, Objects.requireNonNull(spec, "spec"));
    }

    @Override
    public Optional<TaskClaim<T>> claim(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return claimer.claim(timeout, () -> !closed.get());
    }

    @Override
    public CompletableFuture<EnqueueResult> enqueueAsync(T payload, TaskSpec spec, Executor executor) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(executor, "executor");
        return enqueuer.enqueueAsync(payload, spec, executor);
    }

    @Override
    public CompletableFuture<TaskClaim<T>> claimAsync(Duration timeout, Executor executor) {
        return AsyncClaim.start(this, timeout, executor);
    }

    @Override
    public TaskWorker work(int concurrency, TaskWorker.Handler<T> handler) {
        index(); // start the cache now, so a broken connection fails here and not in a thread
        return new ZkTaskWorker<>(this, concurrency, handler,
                "coord-queue-" + layout.name + "-w" + WORKERS.incrementAndGet());
    }

    @Override
    public QueueStats stats() {
        return admin.stats();
    }

    @Override
    public TaskList<T> tasks() {
        return admin.tasks();
    }

    @Override
    public TaskList<T> deadLetters() {
        return admin.deadLetters();
    }

    @Override
    public TaskId requeue(TaskId deadLetter) {
        return admin.requeue(Objects.requireNonNull(deadLetter, "deadLetter"));
    }

    @Override
    public int requeueAll() {
        return admin.requeueAll();
    }

    @Override
    public int purgeDeadLetters() {
        return admin.purgeDeadLetters();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        synchronized (startLock) {
            if (watch != null) {
                watch.close();
            }
        }
    }

    @Override
    public String toString() {
        return "TaskQueue[" + layout.root + (closed.get() ? " closed" : "") + "]";
    }
}
