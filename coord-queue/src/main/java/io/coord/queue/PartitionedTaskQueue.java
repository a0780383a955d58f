package io.coord.queue;

import io.coord.NoParentException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A queue of N &gt; 1 partitions ({@link QueueOptions#partitions()}): N directories
 * {@code /queues/{name}/p{i}}, each a whole queue of its own ({@link ZkTaskQueue}: tasks, claims,
 * dead letters, keys, completions; its own cap, listing and watches), so depth scales with N and
 * every per-queue guarantee holds per partition.
 * <ul>
 *   <li>Enqueue: a keyed task goes to the partition of its key's hash ({@link #partitionOfKey}), so
 *       the key's idempotency record is in one place; an unkeyed task (or a batch) round-robin.
 *   <li>Claim: each consumer compares the partitions' first claimable tasks (from its watched
 *       indexes, no reads) by lane, then by czxid, the zxid of the transaction that created the
 *       task node, which ZooKeeper orders globally, and claims in the oldest partition first (as an
 *       unpartitioned queue would, spreading over its first few ready tasks). A completion takes the
 *       next task in its own transaction only while its partition still holds the oldest head.
 *   <li>Operator views ({@code stats}, {@code tasks}, {@code deadLetters}, requeue, purge) aggregate
 *       the partitions; a task id names its partition ({@code task-p{i}-…}).
 * </ul>
 */
final class PartitionedTaskQueue<T> implements TaskQueue<T>, ClaimSource<T> {
    private static final AtomicInteger WORKERS = new AtomicInteger();
    /** Longest wait between looks at every partition: delays, backoffs and claim timeouts come due without an event. */
    private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final QueueLayout layout;
    private final QueueOptions options;
    private final List<ZkTaskQueue<T>> parts;
    private final AtomicInteger roundRobin = new AtomicInteger(ThreadLocalRandom.current().nextInt(1 << 16));
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object changed = new Object();
    private long changes;
    /** Async claims waiting for a change in any partition ({@link AsyncClaim}). */
    private final Set<Runnable> waiters = java.util.concurrent.ConcurrentHashMap.newKeySet();

    PartitionedTaskQueue(QueueLayout layout, QueueOptions options, List<ZkTaskQueue<T>> parts) {
        this.layout = layout;
        this.options = options;
        this.parts = List.copyOf(parts);
        for (ZkTaskQueue<T> part : parts) {
            part.partitionHooks(this::signal, () -> holdsOldestHead(part));
        }
        // One depth gauge for the queue: the sum over the partitions whose caches have started (NaN before any).
        parts.get(0).metrics.depthGauge(() -> {
            double sum = Double.NaN;
            for (ZkTaskQueue<T> part : this.parts) {
                double d = part.cachedDepth();
                if (!Double.isNaN(d)) {
                    sum = Double.isNaN(sum) ? d : sum + d;
                }
            }
            return sum;
        });
    }

    /** The partition of a keyed task: the key's {@link String#hashCode()} (fixed by the JLS), spread, modulo N. */
    static int partitionOfKey(String key, int partitions) {
        int h = key.hashCode();
        return Math.floorMod(h ^ (h >>> 16), partitions);
    }

    private ZkTaskQueue<T> forSpec(TaskSpec spec) {
        String key = spec.idempotencyKey();
        int i = key != null ? partitionOfKey(key, parts.size()) : Math.floorMod(roundRobin.getAndIncrement(), parts.size());
        return parts.get(i);
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
        Objects.requireNonNull(spec, "spec");
        return forSpec(spec).submit(payload, spec);
    }

    /** One transaction, so one partition (round-robin per batch). */
    @Override
    public List<TaskId> enqueueAll(List<? extends T> batch, TaskSpec spec) {
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(spec, "spec");
        return forSpec(spec).enqueueAll(batch, spec);
    }

    @Override
    public Optional<TaskClaim<T>> claim(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return claimNext(timeout, () -> !closed.get());
    }

    /**
     * Looks at every partition, oldest head first, with a zero-wait claim (which also dead-letters
     * its poison tasks and takes over its timed-out claims), and waits for a change in any of them
     * between looks.
     */
    @Override
    public Optional<TaskClaim<T>> claimNext(Duration timeout, BooleanSupplier keepWaiting) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while claiming from queue '" + layout.name + "'");
            }
            long seen;
            synchronized (changed) {
                seen = changes;
            }
            for (ZkTaskQueue<T> part : parts) {
                part.poison().sweep(); // undecodable tasks go to the dead letters, whichever partition is oldest
            }
            for (ZkTaskQueue<T> part : byHead()) {
                Optional<TaskClaim<T>> claimed = part.claimNext(Duration.ZERO, keepWaiting);
                if (claimed.isPresent()) {
                    return claimed;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !keepWaiting.getAsBoolean()) {
                return Optional.empty();
            }
            synchronized (changed) {
                long until = System.nanoTime() + Math.min(left, MAX_WAIT_NANOS);
                while (changes == seen) {
                    long wait = until - System.nanoTime();
                    if (wait <= 0) {
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedWait(changed, wait);
                }
            }
        }
    }

    /** The partitions, those with a claimable task first, oldest head (lane, then czxid) first. */
    private List<ZkTaskQueue<T>> byHead() {
        long now = options.clock().millis();
        List<ZkTaskQueue<T>> withHead = new ArrayList<>(parts.size());
        List<TaskIndex.Head> heads = new ArrayList<>(parts.size());
        List<ZkTaskQueue<T>> rest = new ArrayList<>(parts.size());
        for (ZkTaskQueue<T> part : parts) {
            TaskIndex.Head head = part.head(now);
            if (head == null) {
                rest.add(part);
            } else {
                withHead.add(part);
                heads.add(head);
            }
        }
        List<Integer> order = new ArrayList<>(withHead.size());
        for (int i = 0; i < withHead.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparing(heads::get));
        List<ZkTaskQueue<T>> out = new ArrayList<>(parts.size());
        order.forEach(i -> out.add(withHead.get(i)));
        out.addAll(rest);
        return out;
    }

    /** Whether {@code part}'s head is at least as old as every other partition's (a completion may then take its next task there). */
    private boolean holdsOldestHead(ZkTaskQueue<T> part) {
        long now = options.clock().millis();
        TaskIndex.Head mine = part.head(now);
        if (mine == null) {
            return false;
        }
        for (ZkTaskQueue<T> other : parts) {
            TaskIndex.Head theirs = other == part ? null : other.head(now);
            if (theirs != null && theirs.compareTo(mine) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Called by any partition's index on a change (under its monitor): must not block. */
    private void signal() {
        synchronized (changed) {
            changes++;
            changed.notifyAll();
        }
        for (Runnable waiter : waiters) {
            waiter.run();
        }
    }

    @Override
    public Runnable addWaiter(Runnable waiter) {
        parts.forEach(p -> p.head(options.clock().millis())); // every partition's cache started: their changes signal here
        waiters.add(waiter);
        return () -> waiters.remove(waiter);
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    @Override
    public io.coord.internal.Zk zk() {
        return parts.get(0).zk;
    }

    /** A keyed task goes to its key's partition, an unkeyed one round-robin, as {@link #submit} does. */
    @Override
    public CompletableFuture<EnqueueResult> enqueueAsync(T payload, TaskSpec spec, Executor executor) {
        Objects.requireNonNull(spec, "spec");
        return forSpec(spec).enqueueAsync(payload, spec, executor);
    }

    @Override
    public CompletableFuture<TaskClaim<T>> claimAsync(Duration timeout, Executor executor) {
        return AsyncClaim.start(this, timeout, executor);
    }

    @Override
    public void takeOverTimedOut() throws InterruptedException {
        for (ZkTaskQueue<T> part : parts) {
            part.takeOverTimedOut();
        }
    }

    @Override
    public void wakeAll() {
        parts.forEach(ZkTaskQueue::wakeAll);
        signal();
    }

    @Override
    public Duration negotiatedSessionTimeout() {
        return parts.get(0).negotiatedSessionTimeout();
    }

    @Override
    public TaskWorker work(int concurrency, TaskWorker.Handler<T> handler) {
        parts.forEach(p -> p.head(options.clock().millis())); // start every cache now, so a broken connection fails here
        return new ZkTaskWorker<>(this, concurrency, handler, "coord-queue-" + layout.name + "-w" + WORKERS.incrementAndGet());
    }

    /** Sums and concatenations of the partitions' stats; the cap is the total of the partitions' caps. */
    @Override
    public QueueStats stats() {
        int pending = 0;
        int waiting = 0;
        int dead = 0;
        Duration oldest = Duration.ZERO;
        List<QueueStats.Processing> processing = new ArrayList<>();
        List<String> foreign = new ArrayList<>();
        List<UndecodableTask> undecodable = new ArrayList<>();
        for (ZkTaskQueue<T> part : parts) {
            QueueStats s = part.stats();
            pending += s.pending();
            waiting += s.waiting();
            dead += s.dead();
            oldest = s.oldestPendingAge().compareTo(oldest) > 0 ? s.oldestPendingAge() : oldest;
            processing.addAll(s.processing());
            foreign.addAll(s.foreign());
            undecodable.addAll(s.undecodable());
        }
        processing.sort(Comparator.comparing(QueueStats.Processing::age).reversed());
        return new QueueStats(layout.name, pending, waiting, processing, dead, oldest,
                options.depthCap() * parts.size(), foreign, undecodable);
    }

    /** Every partition's tasks, by lane (highest first), then enqueue time, then partition and sequence. */
    @Override
    public TaskList<T> tasks() {
        return merged(false);
    }

    @Override
    public TaskList<T> deadLetters() {
        return merged(true);
    }

    private TaskList<T> merged(boolean dead) {
        List<Task<T>> all = new ArrayList<>();
        List<UndecodableTask> bad = new ArrayList<>();
        for (ZkTaskQueue<T> part : parts) {
            TaskList<T> list = dead ? part.deadLetters() : part.tasks();
            all.addAll(list);
            bad.addAll(list.undecodable());
        }
        Comparator<Task<T>> order = Comparator.comparingInt((Task<T> t) -> -t.lane());
        all.sort(order.thenComparing(Task::enqueuedAt).thenComparingInt(t -> t.id().partition()).thenComparing(Task::id));
        return new TaskList<>(all, bad);
    }

    /** The dead letter's partition is in its id ({@code task-p{i}-…}). */
    @Override
    public TaskId requeue(TaskId deadLetter) {
        Objects.requireNonNull(deadLetter, "deadLetter");
        int i = QueueLayout.partitionOf(deadLetter.name());
        if (i < 0 || i >= parts.size()) {
            throw new NoParentException("queue '" + layout.name + "' has no dead letter " + deadLetter + ": its "
                    + parts.size() + " partitions' task ids start with task-p0- .. task-p" + (parts.size() - 1) + "-");
        }
        return parts.get(i).requeue(deadLetter);
    }

    @Override
    public int requeueAll() {
        int n = 0;
        for (ZkTaskQueue<T> part : parts) {
            n += part.requeueAll();
        }
        return n;
    }

    @Override
    public int purgeDeadLetters() {
        int n = 0;
        for (ZkTaskQueue<T> part : parts) {
            n += part.purgeDeadLetters();
        }
        return n;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            parts.forEach(ZkTaskQueue::close);
            signal();
        }
    }

    @Override
    public String toString() {
        return "TaskQueue[" + layout.root + " in " + parts.size() + " partitions" + (closed.get() ? " closed" : "") + "]";
    }
}
