package io.coord.config;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.config.NodeTrack.Content;
import io.coord.internal.Zk;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what one reader applied: an ephemeral node {@code {reportsRoot}/{app}/{key}/{instanceId}}
 * per key, holding a {@link ConfigStore.Report}. Writes are asynchronous and coalesced (one batch
 * in flight; a newer report replaces one not yet sent), so reporting never holds up the reader's
 * config thread: not while the connection is down, and not between two reads of a burst. A node
 * whose report would say what the last one sent on this session says (its time aside) is not
 * written again: a reconnect, or a stale flag set and cleared before the follow-ups ran, costs no
 * write. Failed writes are tried again after a second. The node dies with the session and is written again on
 * the new one. If another session holds a node of the same name (an earlier run of this instance
 * whose session has not expired yet), the reader watches it and writes its own once it is gone.
 */
final class AppliedReporter {
    private static final Logger LOG = LoggerFactory.getLogger(AppliedReporter.class);
    private static final long RETRY_MS = 1000;

    private final ConfigKey<?> key;
    private final ConfigOptions options;
    private final Set<String> written = ConcurrentHashMap.newKeySet();
    /** Per node, what the last report queued for it says, and on which session. */
    private final Map<String, Said> said = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private Map<CoordPath, byte[]> pending;
    private boolean sending;
    private volatile CuratorFramework curator;
    private volatile Watcher watcher;
    private volatile ScheduledExecutorService scheduler;

    AppliedReporter(ConfigKey<?> key, ConfigOptions options) {
        this.key = key;
        this.options = options;
    }

    void attach(CuratorFramework curator, Watcher watcher, ScheduledExecutorService scheduler) {
        this.curator = curator;
        this.watcher = watcher;
        this.scheduler = scheduler;
    }

    CoordPath node(String k) {
        return ConfigLayout.reports(options.reportsRoot(), key.app(), k).child(options.instanceId());
    }

    boolean isReportPath(String path) {
        return key.keys().stream().anyMatch(k -> node(k).value().equals(path));
    }

    /** What a report says, its time aside, and the session it is sent on (0: not known, never equal). */
    private record Said(long session, long version, long revision, boolean canary, boolean stale) {
    }

    /**
     * Reports the contents in effect (called on the config thread); returns at once. Writes
     * nothing for a node whose last queued report on this session says the same.
     */
    void publish(Map<String, Content> inEffect, boolean stale) {
        long session = session();
        Map<CoordPath, byte[]> batch = new LinkedHashMap<>();
        for (String k : key.keys()) {
            Content c = inEffect.get(k);
            Said now = new Said(session, c == null ? Versioned.NO_VERSION : c.version(), c == null ? 0 : c.revision(),
                    c != null && c.kind() == NodeTrack.Kind.CANARY, stale);
            CoordPath node = node(k);
            if (session != 0 && now.equals(said.put(node.value(), now))) {
                continue;
            }
            batch.put(node, ConfigLayout.encodeReport(new ConfigStore.Report(options.instanceId(), now.version(), now.revision(),
                    now.canary(), stale, options.clock().instant())));
        }
        if (batch.isEmpty()) {
            return;
        }
        synchronized (lock) {
            pending = merged(pending, batch);
            if (sending) {
                return;
            }
            sending = true;
        }
        sendPending();
    }

    private void sendPending() {
        Map<CoordPath, byte[]> batch;
        synchronized (lock) {
            batch = pending;
            pending = null;
            if (batch == null || closed.get()) {
                sending = false;
                return;
            }
        }
        AtomicInteger left = new AtomicInteger(batch.size());
        AtomicBoolean failed = new AtomicBoolean();
        Consumer<Boolean> done = ok -> {
            if (!ok) {
                failed.set(true);
            }
            if (left.decrementAndGet() == 0) {
                finished(batch, failed.get());
            }
        };
        batch.forEach((path, data) -> write(path, data, done));
    }

    private void finished(Map<CoordPath, byte[]> batch, boolean failed) {
        if (!failed) {
            sendPending();
            return;
        }
        synchronized (lock) {
            pending = merged(batch, pending);
            sending = false;
        }
        try {
            scheduler.schedule(this::retry, RETRY_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the reader is closing
        }
    }

    /** {@code older} with {@code newer}'s nodes written over it (a batch holds only the nodes that changed). */
    private static Map<CoordPath, byte[]> merged(Map<CoordPath, byte[]> older, Map<CoordPath, byte[]> newer) {
        if (older == null) {
            return newer;
        }
        Map<CoordPath, byte[]> out = new LinkedHashMap<>(older);
        if (newer != null) {
            out.putAll(newer);
        }
        return out;
    }

    /** This reader's session id, or 0 if there is none right now. */
    private long session() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    private void retry() {
        synchronized (lock) {
            if (sending || pending == null) {
                return;
            }
            sending = true;
        }
        sendPending();
    }

    /** setData, or create the ephemeral node if it is missing; {@code done} gets whether the report is in place. */
    private void write(CoordPath path, byte[] data, Consumer<Boolean> done) {
        background(done, () -> curator.setData().inBackground((c, event) -> {
            switch (KeeperException.Code.get(event.getResultCode())) {
                case OK -> checkOwner(path, event, done);
                case NONODE -> create(path, data, done);
                default -> failed(path, event, done);
            }
        }).forPath(path.value(), data));
    }

    private void create(CoordPath path, byte[] data, Consumer<Boolean> done) {
        background(done, () -> curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
                .inBackground((c, event) -> {
                    switch (KeeperException.Code.get(event.getResultCode())) {
                        case OK -> {
                            written.add(path.value());
                            if (closed.get()) {
                                deleteQuietly(path.value()); // created after the reader closed
                            }
                            done.accept(true);
                        }
                        case NODEEXISTS -> write(path, data, done);
                        default -> failed(path, event, done);
                    }
                }).forPath(path.value(), data));
    }

    private void checkOwner(CoordPath path, CuratorEvent event, Consumer<Boolean> done) throws Exception {
        written.add(path.value());
        Stat stat = event.getStat();
        long session = curator.getZookeeperClient().getZooKeeper().getSessionId();
        if (stat == null || stat.getEphemeralOwner() == session) {
            done.accept(true);
            return;
        }
        said.remove(path.value()); // not ours: the next report must be written whatever it says
        LOG.info("report node {} belongs to session 0x{} (an earlier run of instance {}?); writing ours once it is gone",
                path, Long.toHexString(stat.getEphemeralOwner()), options.instanceId());
        // The watch fires when that session's node goes; if it is already gone, the report is retried.
        curator.checkExists().usingWatcher(watcher).inBackground((c, e) -> done.accept(e.getStat() != null)).forPath(path.value());
    }

    private void failed(CoordPath path, CuratorEvent event, Consumer<Boolean> done) {
        LOG.debug("could not report to {}: {}", path, KeeperException.Code.get(event.getResultCode()));
        done.accept(false);
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void background(Consumer<Boolean> done, Call call) {
        try {
            call.run();
        } catch (Exception e) {
            LOG.debug("could not start a report write: {}", e.toString());
            done.accept(false);
        }
    }

    /** Stops reporting and deletes this reader's report nodes (best effort, only nodes this session owns). */
    void close(Zk zk, CuratorFramework curator, boolean connected) {
        closed.set(true);
        if (!connected) {
            return; // the nodes are ephemeral: they go with the session
        }
        for (String path : written) {
            try {
                zk.call(CoordPath.of(path), () -> {
                    deleteIfOurs(curator, path);
                    return null;
                });
            } catch (CoordException e) {
                LOG.debug("could not delete report {}: {}", path, e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        written.clear();
    }

    private void deleteQuietly(String path) {
        try {
            deleteIfOurs(curator, path);
        } catch (Exception e) {
            LOG.debug("could not delete report {}: {}", path, e.toString());
        }
    }

    private static void deleteIfOurs(CuratorFramework curator, String path) throws Exception {
        long session = curator.getZookeeperClient().getZooKeeper().getSessionId();
        Stat stat = curator.checkExists().forPath(path);
        if (stat != null && stat.getEphemeralOwner() == session) {
            try {
                curator.delete().withVersion(stat.getVersion()).forPath(path);
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
                // gone or rewritten meanwhile
            }
        }
    }
}
