package io.coord.config;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.config.NodeTrack.Content;
import io.coord.internal.Zk;
import java.time.Clock;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what one reader applied: an ephemeral node {@code {reportsRoot}/{app}/{key}/{instanceId}}
 * per key, holding a {@link ConfigStore.Report}. Runs on the reader's config thread, after the
 * reads, so reporting never delays applying. The node dies with the session; it is written again
 * on the new one. If another session holds a node of the same name (a previous run of this
 * instance whose session has not expired yet), this reader watches it and writes its own once it
 * is gone.
 */
final class AppliedReporter {
    private static final Logger LOG = LoggerFactory.getLogger(AppliedReporter.class);

    private final ConfigKey<?> key;
    private final ConfigOptions options;
    private final Clock clock;
    private final Set<String> written = new HashSet<>();

    AppliedReporter(ConfigKey<?> key, ConfigOptions options) {
        this.key = key;
        this.options = options;
        this.clock = options.clock();
    }

    CoordPath node(String k) {
        return ConfigLayout.reports(options.reportsRoot(), key.app(), k).child(options.instanceId());
    }

    boolean isReportPath(String path) {
        return key.keys().stream().anyMatch(k -> node(k).value().equals(path));
    }

    /**
     * Writes the report of every key. Returns false if some write failed (the caller tries again
     * later); failures are logged, never thrown: a report is for operators, not for correctness.
     */
    boolean report(Zk zk, CuratorFramework curator, Watcher watcher, Map<String, Content> inEffect, boolean stale)
            throws InterruptedException {
        boolean ok = true;
        for (String k : key.keys()) {
            Content c = inEffect.get(k);
            ConfigStore.Report report = new ConfigStore.Report(options.instanceId(),
                    c == null ? Versioned.NO_VERSION : c.version(), c == null ? 0 : c.revision(),
                    c != null && c.kind() == NodeTrack.Kind.CANARY, stale, clock.instant());
            try {
                write(zk, curator, watcher, node(k), ConfigLayout.encodeReport(report));
            } catch (CoordException e) {
                LOG.debug("could not report applied {} for {}: {}", report, node(k), e.getMessage());
                ok = false;
            }
        }
        return ok;
    }

    private void write(Zk zk, CuratorFramework curator, Watcher watcher, CoordPath path, byte[] data) throws InterruptedException {
        long session = zk.liveSession().id();
        Stat stat = zk.call(path, () -> {
            try {
                return curator.setData().forPath(path.value(), data);
            } catch (KeeperException.NoNodeException e) {
                try {
                    Stat created = new Stat();
                    curator.create().storingStatIn(created).creatingParentContainersIfNeeded()
                            .withMode(CreateMode.EPHEMERAL).forPath(path.value(), data);
                    return created;
                } catch (KeeperException.NodeExistsException raced) {
                    return curator.setData().forPath(path.value(), data);
                }
            }
        });
        written.add(path.value());
        if (stat.getEphemeralOwner() != session) {
            LOG.info("report node {} belongs to session 0x{} (an earlier run of instance {}?); writing ours once it is gone",
                    path, Long.toHexString(stat.getEphemeralOwner()), options.instanceId());
            Stat still = zk.call(path, () -> curator.checkExists().usingWatcher(watcher).forPath(path.value()));
            if (still == null) {
                throw new CoordException("report node " + path + " went away while being written; writing it again");
            }
        }
    }

    /** Deletes this reader's report nodes (best effort, only nodes this session owns). */
    void delete(Zk zk, CuratorFramework curator) {
        for (String path : written) {
            try {
                long session = zk.liveSession().id();
                zk.call(CoordPath.of(path), () -> {
                    Stat stat = curator.checkExists().forPath(path);
                    if (stat != null && stat.getEphemeralOwner() == session) {
                        curator.delete().withVersion(stat.getVersion()).forPath(path);
                    }
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
}
