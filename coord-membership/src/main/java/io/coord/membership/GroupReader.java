package io.coord.membership;

import io.coord.Codec;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.ForeignNodeWarnings;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a group from ZooKeeper: the children of the group node (with its stat, for the version),
 * then the data of each member that is new, marked changed by a watch event, or of every member
 * when a full rebuild is asked for. Members whose node is unchanged keep their last read.
 */
final class GroupReader<M> {
    private static final Logger LOG = LoggerFactory.getLogger(GroupReader.class);

    /**
     * One read. {@code exists} is false when the group node is absent (no member ever joined, or
     * it was removed); the version is then 0 and carries no information. {@code pzxid} is the
     * group node's as listed; {@code complete} is false when a listed member vanished before its
     * data could be read (the read then mixes two states of the group); {@code fresh} names the
     * members whose data this read fetched (the others were carried over from before).
     */
    record Read<M>(boolean exists, long pzxid, long version, SortedMap<String, MemberInfo<M>> members, boolean complete,
                   Set<String> fresh) {
    }

    /** How much of an undecodable payload a member's {@code metadataError} shows. */
    static final int PAYLOAD_SHOWN = 200;

    private final Zk zk;
    private final CoordPath path;
    private final Codec<M> codec;
    private final ForeignNodeWarnings warnings;
    /** Member ids already logged for undecodable metadata: once each, and at most {@value #WARNED_AT_MOST}. */
    private final Set<String> undecodable = ConcurrentHashMap.newKeySet();
    private static final int WARNED_AT_MOST = 1_000;

    GroupReader(Zk zk, CoordPath path, Codec<M> codec) {
        this.zk = zk;
        this.path = path;
        this.codec = codec;
        this.warnings = new ForeignNodeWarnings(LOG, "group '" + path.name() + "'");
    }

    Read<M> read(Map<String, MemberInfo<M>> previous, Set<String> changed, boolean full) throws InterruptedException {
        Stat parent = new Stat();
        List<String> children;
        try {
            children = zk.curator().getChildren().storingStatIn(parent).forPath(path.value());
        } catch (KeeperException.NoNodeException e) {
            return new Read<>(false, -1, 0, new TreeMap<>(), true, Set.of());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, path);
        }
        long version = parent.getPzxid();
        boolean complete = true;
        Set<String> fresh = new java.util.HashSet<>();
        TreeMap<String, MemberInfo<M>> members = new TreeMap<>();
        for (String child : children) {
            MemberInfo<M> old = previous.get(child);
            if (!full && old != null && !changed.contains(child)) {
                members.put(child, old);
                version = Math.max(version, old.mzxid());
                continue;
            }
            CoordPath node;
            try {
                node = path.child(child);
            } catch (CoordException e) {
                // Not a name Coord can hold as a member id: it cannot be in the view, so say so, once.
                warnings.check(path, List.of(child), c -> false, "member ids that are valid node names (" + e.getMessage() + ")");
                continue;
            }
            Stat stat = new Stat();
            byte[] data;
            try {
                data = zk.curator().getData().storingStatIn(stat).forPath(node.value());
            } catch (KeeperException.NoNodeException e) {
                complete = false; // left between the listing and this read; its deletion event follows
                continue;
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw zk.translate(e, node);
            }
            members.put(child, decode(child, node, stat, data));
            fresh.add(child);
            version = Math.max(version, stat.getMzxid());
        }
        return new Read<>(true, parent.getPzxid(), version, members, complete, fresh);
    }

    /**
     * A member whose data does not decode (a Curator {@code GroupMember}'s raw payload, another
     * metadata type) is still a member: its node exists. Its {@code metadataError} shows the raw
     * payload, and the first sighting of its node is logged at WARN.
     */
    MemberInfo<M> decode(String id, CoordPath node, Stat stat, byte[] data) {
        M metadata = null;
        String error = null;
        try {
            metadata = codec.decode(node, data);
        } catch (CoordException e) {
            error = "raw payload " + payload(data) + " is not this group's metadata: " + e.getMessage();
            if (undecodable.size() < WARNED_AT_MOST && undecodable.add(id)) {
                LOG.warn("group '{}': member {} holds {}, not this group's metadata (a Curator GroupMember's payload, another"
                        + " program's node or another metadata type); it counts as a member, with metadataError set and"
                        + " shown by coord members ls", path.name(), node, payload(data));
            }
        }
        return new MemberInfo<>(id, metadata, error, Instant.ofEpochMilli(stat.getCtime()), stat.getEphemeralOwner(),
                stat.getCzxid(), stat.getMzxid(), stat.getVersion());
    }

    /** {@code data} as text when it is printable UTF-8, else as hex; at most {@value #PAYLOAD_SHOWN} characters of either. */
    static String payload(byte[] data) {
        if (data == null || data.length == 0) {
            return "(empty)";
        }
        String text = new String(data, StandardCharsets.UTF_8);
        boolean printable = Arrays.equals(text.getBytes(StandardCharsets.UTF_8), data)
                && text.codePoints().allMatch(c -> c >= 0x20 && c != 0x7f || c == '\t' || c == '\n' || c == '\r');
        String shown = printable ? text : "0x" + HexFormat.of().formatHex(data);
        String cut = shown.length() > PAYLOAD_SHOWN ? shown.substring(0, PAYLOAD_SHOWN) + "..." : shown;
        return (printable ? "\"" + cut + "\"" : cut) + " (" + data.length + (data.length == 1 ? " byte)" : " bytes)");
    }
}
