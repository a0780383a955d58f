package io.coord.queue;

import io.coord.CodecException;
import io.coord.ConflictException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.NoParentException;
import io.coord.internal.Payloads;
import io.coord.internal.SequentialNodes;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operator calls: listings, stats and dead-letter handling. These read whole directories (bounded
 * by the depth cap), unlike consumers, which never list.
 */
final class QueueAdmin<T> {
    private static final Logger LOG = LoggerFactory.getLogger(QueueAdmin.class);

    private final ZkTaskQueue<T> queue;
    private final Zk zk;
    private final QueueLayout layout;

    QueueAdmin(ZkTaskQueue<T> queue) {
        this.queue = queue;
        this.zk = queue.zk;
        this.layout = queue.layout;
    }

    /** One task node as read: its bytes and version. */
    private record Read(String name, byte[] data, int version) {
    }

    /** A read that decoded: the task's record and payload. */
    private record Decoded<T>(String name, TaskRecord record, T payload) {
    }

    /** The reads of {@code dir}, split into those that decode and those that do not (with why). */
    private record Split<T>(List<Decoded<T>> good, List<UndecodableTask> bad) {
    }

    TaskList<T> tasks() {
        Set<String> claims = children(layout.claims);
        Split<T> split = decode(layout.tasks, read(layout.tasks));
        List<Task<T>> out = new ArrayList<>();
        for (Decoded<T> d : split.good()) {
            out.add(toTask(d, claims.contains(d.record().claim() == null ? "" : d.record().claim())
                    ? Task.State.PROCESSING : Task.State.PENDING));
        }
        out.sort(Comparator.comparingInt((Task<T> t) -> -t.lane()).thenComparing(Task::id));
        return new TaskList<>(out, split.bad());
    }

    TaskList<T> deadLetters() {
        Split<T> split = decode(layout.dead, read(layout.dead));
        List<Task<T>> out = new ArrayList<>();
        for (Decoded<T> d : split.good()) {
            out.add(toTask(d, Task.State.DEAD));
        }
        out.sort(Comparator.comparing(Task::id));
        return new TaskList<>(out, split.bad());
    }

    /**
     * Decodes every read, record and payload, in their order. A node that does not decode is kept
     * with its bytes and error instead of failing the whole view: the one call an operator runs
     * during an incident must not go blind because of one bad node.
     */
    private Split<T> decode(CoordPath dir, List<Read> reads) {
        List<Decoded<T>> good = new ArrayList<>();
        List<UndecodableTask> bad = new ArrayList<>();
        for (Read r : reads) {
            CoordPath where = dir.child(r.name());
            try {
                TaskRecord record = queue.codec.decode(where, r.data());
                good.add(new Decoded<>(r.name(), record, queue.codec.decodePayload(where, record.payload())));
            } catch (CodecException e) {
                bad.add(new UndecodableTask(new TaskId(r.name()), where.value(), r.data(), e.getMessage()));
            }
        }
        return new Split<>(good, bad);
    }

    QueueStats stats() {
        long now = queue.options.clock().millis();
        Set<String> claims = children(layout.claims);
        int pending = 0;
        int waiting = 0;
        long oldestReady = Long.MAX_VALUE;
        List<QueueStats.Processing> processing = new ArrayList<>();
        Split<T> split = decode(layout.tasks, read(layout.tasks));
        for (Decoded<T> r : split.good()) {
            TaskRecord t = r.record();
            if (t.claim() != null && claims.contains(t.claim())) {
                long age = Math.max(0, now - (t.claimedAt() == null ? now : t.claimedAt()));
                processing.add(new QueueStats.Processing(new TaskId(r.name()), t.claimedBy() == null ? "?" : t.claimedBy(),
                        Duration.ofMillis(age), t.attempts()));
            } else if (t.notBeforeMillis() > now) {
                waiting++;
            } else {
                pending++;
                oldestReady = Math.min(oldestReady, t.enqueuedAt());
            }
        }
        processing.sort(Comparator.comparing(QueueStats.Processing::age).reversed());
        Stat dead = zk.callUninterruptibly(layout.dead, () -> zk.curator().checkExists().forPath(layout.dead.value()));
        Duration oldest = oldestReady == Long.MAX_VALUE ? Duration.ZERO : Duration.ofMillis(Math.max(0, now - oldestReady));
        return new QueueStats(layout.name, pending, waiting, processing, dead == null ? 0 : dead.getNumChildren(), oldest,
                queue.options.depthCap(), foreign(claims), split.bad());
    }

    /** Every node in the queue's directories that is not the queue's, as {@code dir/name} under the root. */
    private List<String> foreign(Set<String> claims) {
        List<String> out = new ArrayList<>(queue.foreign.check(layout.root, sortedNames(layout.root), QueueLayout::isRootChild,
                String.join(", ", QueueLayout.ROOT_CHILDREN)));
        addForeign(out, layout.tasks, sortedNames(layout.tasks), QueueLayout::isTaskName, QueueWatch.TASK_NAMES);
        addForeign(out, layout.claims, claims.stream().sorted().toList(), QueueLayout::isClaimName, QueueWatch.CLAIM_NAMES);
        addForeign(out, layout.dead, sortedNames(layout.dead), QueueLayout::isTaskName, QueueWatch.TASK_NAMES);
        addForeign(out, layout.keys, sortedNames(layout.keys), QueueLayout::isKeyName, "k-{key} or a-{uuid}");
        return out;
    }

    private void addForeign(List<String> out, CoordPath dir, List<String> names, java.util.function.Predicate<String> understood,
                            String expected) {
        String under = dir.value().substring(layout.root.value().length() + 1);
        for (String n : queue.foreign.check(dir, names, understood, expected)) {
            out.add(under + "/" + n);
        }
    }

    private List<String> sortedNames(CoordPath dir) {
        return children(dir).stream().sorted().toList();
    }

    TaskId requeue(TaskId deadLetter) {
        CoordPath deadPath = layout.deadLetter(deadLetter.name());
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.curator().getData().storingStatIn(stat).forPath(deadPath.value());
        } catch (KeeperException.NoNodeException e) {
            throw new NoParentException("queue '" + layout.name + "' has no dead letter " + deadLetter, e);
        } catch (Exception e) {
            throw zk.translate(e, deadPath);
        }
        TaskRecord dead;
        try {
            dead = queue.codec.decode(deadPath, data);
        } catch (CodecException e) {
            throw new CodecException("cannot requeue " + deadLetter + " of queue '" + layout.name + "': " + e.getMessage()
                    + "; its bytes are kept as they are: repair them (they must be a task record) and requeue it; nothing changed", e);
        }
        String key = dead.key() != null && dead.key().startsWith(QueueLayout.USER_KEY_PREFIX) ? dead.key()
                : QueueLayout.AUTO_KEY_PREFIX + UUID.randomUUID();
        TaskRecord fresh = dead.requeued(queue.options.clock().millis(), key);
        byte[] freshData = queue.codec.encode(layout.tasks, fresh);
        CoordPath keyPath = layout.key(key);
        CoordPath prefix = layout.task(layout.taskPrefix);
        List<CuratorOp> ops = List.of(
                Txn.op(zk, deadPath, () -> zk.curator().transactionOp().delete().withVersion(stat.getVersion())
                        .forPath(deadPath.value())),
                Txn.op(zk, keyPath, () -> zk.curator().transactionOp().create().forPath(keyPath.value(),
                        new byte[0])),
                Txn.op(zk, prefix, () -> zk.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath(prefix.value(), freshData)));
        try {
            Payloads.checkChildCap(zk, layout.tasks, queue.options.depthCap());
            String path = Txn.commit(zk, deadPath, ops).get(2).getResultPath();
            TaskId id = new TaskId(path.substring(path.lastIndexOf('/') + 1));
            if (key.startsWith(QueueLayout.USER_KEY_PREFIX)) {
                zk.callUninterruptibly(keyPath, () -> zk.curator().setData().forPath(keyPath.value(),
                        id.name().getBytes(StandardCharsets.UTF_8)));
            }
            return id;
        } catch (io.coord.TooManyChildrenException e) {
            throw new QueueFullException("cannot requeue " + deadLetter + ": queue '" + layout.name + "' is at its depth cap", e);
        } catch (KeeperException e) {
            int failed = Txn.failedIndex(e);
            if (failed == 1 && e.code() == KeeperException.Code.NODEEXISTS) {
                throw new ConflictException("cannot requeue " + deadLetter + ": its idempotency key '"
                        + key.substring(QueueLayout.USER_KEY_PREFIX.length()) + "' is held by a live task or a remembered completion;"
                        + " nothing changed", e);
            }
            if (failed == 0) {
                throw new ConflictException("dead letter " + deadLetter + " changed or went away while being requeued; nothing changed", e);
            }
            throw zk.translate(e, deadPath);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted while requeueing " + deadLetter, e);
        }
    }

    int requeueAll() {
        int moved = 0;
        for (String name : sortedChildren(layout.dead)) {
            try {
                requeue(new TaskId(name));
                moved++;
            } catch (NoParentException gone) {
                // purged or requeued by someone else meanwhile
            } catch (CodecException bad) {
                // Left where it is, bytes intact, for an operator to repair; the others still go.
                LOG.warn("{}", bad.getMessage());
            }
        }
        return moved;
    }

    int purgeDeadLetters() {
        int purged = 0;
        for (String name : sortedChildren(layout.dead)) {
            CoordPath p = layout.deadLetter(name);
            try {
                zk.curator().delete().forPath(p.value());
                purged++;
            } catch (KeeperException.NoNodeException gone) {
                // someone else got there first
            } catch (Exception e) {
                throw zk.translate(e, p);
            }
        }
        return purged;
    }

    private Task<T> toTask(Decoded<T> r, Task.State state) {
        TaskRecord t = r.record();
        T payload = r.payload();
        boolean processing = state == Task.State.PROCESSING;
        return new Task<>(new TaskId(r.name()), state, payload, t.lane(), Instant.ofEpochMilli(t.enqueuedAt()),
                t.notBefore() == null ? null : Instant.ofEpochMilli(t.notBefore()), t.attempts(), t.deliveries(),
                t.maxRetries(), t.lastError(), processing ? (t.claimedBy() == null ? "?" : t.claimedBy()) : null,
                processing && t.claimedAt() != null ? Instant.ofEpochMilli(t.claimedAt()) : null);
    }

    /**
     * Reads every task node of {@code dir}: one listing, then all reads pipelined (sent without
     * waiting for each reply), so a queue at its cap reads in about the time of a few round trips.
     */
    private List<Read> read(CoordPath dir) {
        List<String> names = sortedChildren(dir);
        Read[] reads = new Read[names.size()];
        RuntimeException[] failure = new RuntimeException[1];
        CountDownLatch done = new CountDownLatch(names.size());
        for (int i = 0; i < names.size(); i++) {
            int at = i;
            String name = names.get(i);
            CoordPath p = dir.child(name);
            try {
                zk.curator().getData().inBackground((c, e) -> {
                    try {
                        if (e.getResultCode() == KeeperException.Code.OK.intValue()) {
                            reads[at] = new Read(name, e.getData(), e.getStat().getVersion());
                        } else if (e.getResultCode() != KeeperException.Code.NONODE.intValue()) {
                            // NONODE: ended while we were reading
                            failure[0] = zk.translate(KeeperException.create(KeeperException.Code.get(e.getResultCode()), p.value()), p);
                        }
                    } catch (RuntimeException bad) {
                        failure[0] = bad;
                    } finally {
                        done.countDown();
                    }
                }).forPath(p.value());
            } catch (Exception e) {
                throw zk.translate(e, p);
            }
        }
        try {
            java.time.Duration budget = zk.client().settings().requestTimeout();
            if (!done.await(budget.toMillis() + names.size(), TimeUnit.MILLISECONDS)) {
                throw new CoordTimeoutException("reading the " + names.size() + " nodes of " + dir + " did not finish in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted while reading " + dir, e);
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        List<Read> out = new ArrayList<>(reads.length);
        for (Read r : reads) {
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    private List<String> sortedChildren(CoordPath dir) {
        List<String> names = new ArrayList<>(children(dir));
        return SequentialNodes.sorted(names, QueueLayout.TASK_PREFIX).stream().filter(QueueLayout::isTaskName).toList();
    }

    private Set<String> children(CoordPath dir) {
        return new HashSet<>(zk.callUninterruptibly(dir, () -> zk.curator().getChildren().forPath(dir.value())));
    }
}
