package io.coord.config;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.CallerExecutor;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** The writer: checks values, then hands them to {@link Publisher}; history, canary and reports are plain reads and small transactions. */
final class ZkConfigStore implements ConfigStore {
    private final Zk zk;
    private final CuratorFramework curator;
    private final ConfigOptions options;
    private final Publisher publisher;

    ZkConfigStore(CoordClient client, ConfigOptions options) {
        this.zk = Zk.of(client);
        this.curator = zk.curator();
        this.options = options;
        this.publisher = new Publisher(zk, options.historyDepth());
    }

    /** Serializes and checks {@code value}: size, a strict re-read as the key's type, the validator. */
    private <T> byte[] checked(ConfigKey<T> key, T value) {
        byte[] bytes = key.codec(options.maxValueBytes()).encode(key.path(), value);
        return checkedBytes(key, bytes);
    }

    private <T> byte[] checkedBytes(ConfigKey<T> key, byte[] bytes) {
        T decoded = key.codec(options.maxValueBytes()).decode(key.path(), bytes);
        key.validate(key.path().value(), decoded);
        return bytes;
    }

    @Override
    public <T> Optional<Versioned<T>> get(ConfigKey<T> key) throws InterruptedException {
        key.requireSingle("get");
        Stat stat = new Stat();
        byte[] data = read(key.path(), stat);
        if (data == null) {
            return Optional.empty();
        }
        T value = key.codec(options.maxValueBytes()).decode(key.path(), data);
        return Optional.of(new Versioned<>(value, stat.getVersion(), stat.getMzxid(), Instant.ofEpochMilli(stat.getMtime()),
                Versioned.Origin.LIVE));
    }

    @Override
    public <T> long put(ConfigKey<T> key, T value) throws InterruptedException {
        key.requireSingle("put");
        return publisher.publish(key.app(), key.key(), checked(key, value), Publisher.ANY, null);
    }

    @Override
    public <T> long compareAndSet(ConfigKey<T> key, long expectedVersion, T value) throws InterruptedException {
        key.requireSingle("compareAndSet");
        checkExpected(expectedVersion);
        return publisher.publish(key.app(), key.key(), checked(key, value), expectedVersion, null);
    }

    private static void checkExpected(long expectedVersion) {
        if (expectedVersion < 0 || expectedVersion >= Integer.MAX_VALUE) {
            throw new IllegalArgumentException("expectedVersion must be a znode version (0.." + (Integer.MAX_VALUE - 1)
                    + "), got " + expectedVersion + "; use createIfAbsent for a key that does not exist");
        }
    }

    @Override
    public <T> CompletableFuture<Long> putAsync(ConfigKey<T> key, T value) {
        return putAsync(key, value, CallerExecutor.DEFAULT);
    }

    @Override
    public <T> CompletableFuture<Long> putAsync(ConfigKey<T> key, T value, Executor executor) {
        key.requireSingle("putAsync");
        return publishAsync(key, checked(key, value), Publisher.ANY, executor);
    }

    @Override
    public <T> CompletableFuture<Long> compareAndSetAsync(ConfigKey<T> key, long expectedVersion, T value) {
        return compareAndSetAsync(key, expectedVersion, value, CallerExecutor.DEFAULT);
    }

    @Override
    public <T> CompletableFuture<Long> compareAndSetAsync(ConfigKey<T> key, long expectedVersion, T value, Executor executor) {
        key.requireSingle("compareAndSetAsync");
        checkExpected(expectedVersion);
        return publishAsync(key, checked(key, value), expectedVersion, executor);
    }

    private CompletableFuture<Long> publishAsync(ConfigKey<?> key, byte[] bytes, long expected, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        CompletableFuture<Long> caller = new CompletableFuture<>();
        AsyncPublish publish = new AsyncPublish(zk, publisher, key.app(), key.key(), bytes, expected, caller);
        CallerExecutor.completeOn(publish.work, caller, executor);
        publish.look();
        return caller;
    }

    @Override
    public <T> boolean createIfAbsent(ConfigKey<T> key, T value) throws InterruptedException {
        key.requireSingle("createIfAbsent");
        return publisher.publish(key.app(), key.key(), checked(key, value), Publisher.ABSENT, null) != Publisher.EXISTED;
    }

    @Override
    public boolean delete(ConfigKey<?> key) throws InterruptedException {
        key.requireSingle("delete");
        for (int attempt = 0; attempt < 20; attempt++) {
            Stat stat = zk.call(key.path(), () -> curator.checkExists().forPath(key.path().value()));
            if (stat == null) {
                return false;
            }
            try {
                delete(key, stat.getVersion());
                return true;
            } catch (io.coord.ConflictException e) {
                // changed meanwhile: look again
            }
        }
        throw new io.coord.ConflictException("deleting " + key.path() + " lost to concurrent writers 20 times");
    }

    @Override
    public void delete(ConfigKey<?> key, long expectedVersion) throws InterruptedException {
        key.requireSingle("delete");
        CoordPath node = key.path();
        CoordPath historyDir = ConfigLayout.historyDir(key.app(), key.key());
        CoordPath canary = ConfigLayout.canary(key.app(), key.key());
        List<String> history = children(historyDir);
        Stat canaryStat = zk.call(canary, () -> curator.checkExists().forPath(canary.value()));
        KeeperException failure = zk.call(node, () -> {
            List<CuratorOp> ops = new ArrayList<>();
            ops.add(curator.transactionOp().delete().withVersion((int) expectedVersion).forPath(node.value()));
            for (String name : history) {
                ops.add(curator.transactionOp().delete().forPath(historyDir.child(name).value()));
            }
            if (!history.isEmpty() || curator.checkExists().forPath(historyDir.value()) != null) {
                ops.add(curator.transactionOp().delete().forPath(historyDir.value()));
            }
            if (canaryStat != null) {
                ops.add(curator.transactionOp().delete().forPath(canary.value()));
            }
            try {
                curator.transaction().forOperations(ops);
                return null;
            } catch (KeeperException e) {
                if (e.getResults() == null || e.code() == KeeperException.Code.NOAUTH) {
                    throw e;
                }
                return e;
            }
        });
        if (failure != null) {
            Stat now = zk.call(node, () -> curator.checkExists().forPath(node.value()));
            throw new io.coord.ConflictException("delete of " + node + " expected version " + expectedVersion + " but "
                    + (now == null ? "the key does not exist" : "the current version is " + now.getVersion())
                    + " (or its history or canary changed meanwhile); nothing was deleted", failure);
        }
    }

    @Override
    public List<Versioned<String>> history(ConfigKey<?> key) throws InterruptedException {
        key.requireSingle("history");
        CoordPath dir = ConfigLayout.historyDir(key.app(), key.key());
        List<String> names = new ArrayList<>(ConfigLayout.sortedHistory(children(dir)));
        names.sort(Comparator.comparingLong((String n) -> ConfigLayout.historyVersion(n).getAsLong()).reversed());
        List<Versioned<String>> out = new ArrayList<>();
        for (String name : names) {
            Stat stat = new Stat();
            byte[] data = read(dir.child(name), stat);
            if (data != null) {
                out.add(new Versioned<>(new String(data, StandardCharsets.UTF_8), ConfigLayout.historyVersion(name).getAsLong(),
                        stat.getMzxid(), Instant.ofEpochMilli(stat.getMtime()), Versioned.Origin.LIVE));
            }
        }
        return out;
    }

    @Override
    public <T> long rollback(ConfigKey<T> key, long version) throws InterruptedException {
        key.requireSingle("rollback");
        CoordPath entry = ConfigLayout.historyNode(key.app(), key.key(), version);
        byte[] old = read(entry, new Stat());
        if (old == null) {
            List<Long> kept = ConfigLayout.sortedHistory(children(ConfigLayout.historyDir(key.app(), key.key()))).stream()
                    .map(n -> ConfigLayout.historyVersion(n).getAsLong()).toList();
            throw new IllegalArgumentException("cannot roll " + key.path() + " back to version " + version
                    + ": it is not in history (kept: " + kept + ")");
        }
        return publisher.publish(key.app(), key.key(), checkedBytes(key, old), Publisher.ANY, null);
    }

    @Override
    public <T> long canary(ConfigKey<T> key, T value, double percent) throws InterruptedException {
        key.requireSingle("canary");
        CanaryRule.checkPercent(percent);
        byte[] envelope = new ConfigLayout.Envelope(percent, checked(key, value)).encode();
        CoordPath node = ConfigLayout.canary(key.app(), key.key());
        zk.checkSize(node, envelope.length);
        Stat stat = zk.call(node, () -> {
            try {
                return curator.setData().forPath(node.value(), envelope);
            } catch (KeeperException.NoNodeException e) {
                Stat created = new Stat();
                curator.create().storingStatIn(created).creatingParentsIfNeeded().forPath(node.value(), envelope);
                return created;
            }
        });
        return stat.getVersion();
    }

    @Override
    public Optional<Canary> canaryOf(ConfigKey<?> key) throws InterruptedException {
        key.requireSingle("canaryOf");
        CoordPath node = ConfigLayout.canary(key.app(), key.key());
        Stat stat = new Stat();
        byte[] data = read(node, stat);
        if (data == null) {
            return Optional.empty();
        }
        ConfigLayout.Envelope envelope = ConfigLayout.Envelope.decode(node, data);
        return Optional.of(new Canary(envelope.percent(), stat.getVersion(), stat.getMzxid(),
                new String(envelope.value(), StandardCharsets.UTF_8)));
    }

    @Override
    public <T> long promote(ConfigKey<T> key) throws InterruptedException {
        key.requireSingle("promote");
        CoordPath node = ConfigLayout.canary(key.app(), key.key());
        Stat stat = new Stat();
        byte[] data = read(node, stat);
        if (data == null) {
            throw new IllegalStateException("no canary is running for " + key.path() + ": nothing to promote");
        }
        byte[] value = checkedBytes(key, ConfigLayout.Envelope.decode(node, data).value());
        int canaryVersion = stat.getVersion();
        return publisher.publish(key.app(), key.key(), value, Publisher.ANY,
                () -> List.of(curator.transactionOp().delete().withVersion(canaryVersion).forPath(node.value())));
    }

    @Override
    public boolean abort(ConfigKey<?> key) throws InterruptedException {
        key.requireSingle("abort");
        CoordPath node = ConfigLayout.canary(key.app(), key.key());
        return zk.call(node, () -> {
            try {
                curator.delete().forPath(node.value());
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            }
        });
    }

    @Override
    public List<Report> who(ConfigKey<?> key) throws InterruptedException {
        key.requireSingle("who");
        CoordPath dir = ConfigLayout.reports(options.reportsRoot(), key.app(), key.key());
        List<Report> out = new ArrayList<>();
        for (String instance : children(dir)) {
            CoordPath node = dir.child(instance);
            byte[] data = read(node, new Stat());
            if (data != null) {
                try {
                    out.add(ConfigLayout.decodeReport(node, data));
                } catch (CoordException e) {
                    // not a report Coord wrote: skip it rather than hide every other instance
                }
            }
        }
        out.sort(Comparator.comparing(Report::instance));
        return out;
    }

    /** The node's data (and stat), or null if it does not exist. */
    private byte[] read(CoordPath path, Stat stat) throws InterruptedException {
        return zk.call(path, () -> {
            try {
                return curator.getData().storingStatIn(stat).forPath(path.value());
            } catch (KeeperException.NoNodeException e) {
                return null;
            }
        });
    }

    private List<String> children(CoordPath dir) throws InterruptedException {
        return zk.call(dir, () -> {
            try {
                return curator.getChildren().forPath(dir.value());
            } catch (KeeperException.NoNodeException e) {
                return List.<String>of();
            }
        });
    }

    @Override
    public String toString() {
        return "ConfigStore[" + zk.client() + ", history " + options.historyDepth() + "]";
    }
}
