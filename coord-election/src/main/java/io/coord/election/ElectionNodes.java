package io.coord.election;

import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes of one election's nodes (layout in {@code package-info}): the candidates, and
 * the announcement on the election node. No watches of its own; observers pass theirs.
 */
final class ElectionNodes {
    private static final Logger LOG = LoggerFactory.getLogger(ElectionNodes.class);

    private final Zk zk;
    private final CoordPath path;
    private final CuratorLayout layout;

    ElectionNodes(Zk zk, CoordPath path, CuratorLayout layout) {
        this.zk = zk;
        this.path = path;
        this.layout = layout;
    }

    CuratorLayout layout() {
        return layout;
    }

    /**
     * Announces on the election node that we act: {@code multi(check(ourNode), setData(election))},
     * sent in the background (the leader does not wait for it). Only a leader whose node exists can
     * write it, so it never goes back to an older leader.
     */
    void announce(NodeLease lease, String participantId) {
        try {
            byte[] bytes = Announcement.CODEC.encode(path, new Announcement(lease.token().value(), participantId));
            var set = zk.curator().transactionOp().setData().forPath(path.value(), bytes);
            zk.curator().transaction().inBackground((client, event) -> {
                if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
                    LOG.debug("could not announce leader {} on {}: {}", lease.token(), path, KeeperException.Code.get(event.getResultCode()));
                }
            }).forOperations(List.of(lease.fenceCheck(), set));
        } catch (Exception e) {
            LOG.debug("could not announce leader {} on {}", lease.token(), path, e);
        }
    }

    /** Who leads now (one read of the children, the announcement and the lowest node). */
    Optional<LeaderInfo> leader() throws InterruptedException {
        Optional<Announced> announced = announcement(zk.curator(), null);
        for (String child : CandidateRule.order(children(), layout)) {
            Optional<Participant> p = participant(child);
            if (p.isPresent()) {
                return Optional.of(toLeaderInfo(p.get(), announced));
            }
        }
        return Optional.empty();
    }

    /** Every candidate, in election order. */
    List<Participant> candidates() throws InterruptedException {
        List<Participant> out = new ArrayList<>();
        for (String child : CandidateRule.order(children(), layout)) {
            participant(child).ifPresent(out::add);
        }
        return out;
    }

    /** An announcement as read, with the server time it was written. */
    record Announced(Announcement announcement, Instant at) {
    }

    static LeaderInfo toLeaderInfo(Participant leader, Optional<Announced> announced) {
        boolean acting = announced.isPresent() && CandidateRule.isActing(announced.get().announcement().epoch(), leader.token().value());
        return new LeaderInfo(leader, acting, acting ? announced.get().at() : leader.joinedAt());
    }

    /** The election node's children; none if it does not exist. */
    List<String> children() throws InterruptedException {
        return zk.call(path, () -> {
            try {
                return zk.curator().getChildren().forPath(path.value());
            } catch (KeeperException.NoNodeException e) {
                return List.<String>of();
            }
        });
    }

    /**
     * Reads the election node's announcement through {@code via}, leaving {@code watcher} unless
     * null; empty if there is none or it is unreadable.
     */
    Optional<Announced> announcement(CuratorFramework via, Watcher watcher)
            throws InterruptedException {
        Stat stat = new Stat();
        byte[] bytes = zk.call(path, () -> {
            try {
                return watcher != null ? via.getData().storingStatIn(stat).usingWatcher(watcher).forPath(path.value())
                        : via.getData().storingStatIn(stat).forPath(path.value());
            } catch (KeeperException.NoNodeException e) {
                return null;
            }
        });
        if (bytes == null || bytes.length == 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Announced(Announcement.CODEC.decode(path, bytes), Instant.ofEpochMilli(stat.getMtime())));
        } catch (RuntimeException e) {
            LOG.warn("election node {} holds no valid announcement; leaders show as not acting: {}", path, e.getMessage());
            return Optional.empty();
        }
    }

    /** Coord writes a JSON object; Curator the bare id (which is no JSON object unless someone chose one). */
    private static boolean isCandidateData(byte[] bytes) {
        return bytes.length > 0 && bytes[0] == '{';
    }

    /** Reads one candidate node, Coord's or Curator's; empty if it is gone. */
    Optional<Participant> participant(String child) throws InterruptedException {
        CoordPath node = path.child(child);
        Stat stat = new Stat();
        byte[] bytes = zk.call(node, () -> {
            try {
                return zk.curator().getData().storingStatIn(stat).forPath(node.value());
            } catch (KeeperException.NoNodeException e) {
                return null;
            }
        });
        if (bytes == null) {
            return Optional.empty();
        }
        FencingToken token = new FencingToken(stat.getCzxid(), node);
        Instant joined = Instant.ofEpochMilli(stat.getCtime());
        if (isCandidateData(bytes)) {
            try {
                CandidateData d = CandidateData.CODEC.decode(node, bytes);
                return Optional.of(new Participant(d.participant(), d.metadata(), token, joined));
            } catch (RuntimeException e) {
                LOG.debug("candidate {} holds no Coord candidate data; read as Curator's: {}", node, e.getMessage());
            }
        }
        // Curator's LeaderLatch/LeaderSelector node: its data is the participant id, nothing else.
        return Optional.of(new Participant(new String(bytes, StandardCharsets.UTF_8), Map.of(), token, joined,
                Participant.Library.CURATOR));
    }
}
