package io.coord.naming;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.internal.ForeignNodeWarnings;
import io.coord.internal.Zk;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the nodes of one ID name ({@code /ids/{name}} and its counters) are Coord's. Curator's
 * counters cannot share them: {@code DistributedAtomicLong} keeps an 8-byte long in its node and
 * {@code SharedCount} / {@code DistributedAtomicInteger} a 4-byte int, each advanced by a
 * compare-and-set on that value, while Coord's IDs come from the node's czxid and version
 * ({@link IdRule}). A Coord write would reset a Curator value (Curator would hand out its IDs
 * again), and a Curator write would move Coord's version. So a generator refuses before its first
 * write when it finds such bytes, and names them; Coord's sequence counter holds {@link #SEQUENCE_MARK},
 * which Curator's counters refuse as corrupt instead of reading it as 0.
 *
 * <p>Coord's own data is never 4 or 8 bytes: a sequence counter holds nothing (releases before the
 * mark) or the 3-byte mark, a block counter at least 17 ASCII bytes ({@link IdRule#encodeCounter}).
 */
final class IdNodes {
    private static final Logger LOG = LoggerFactory.getLogger(IdNodes.class);
    /** One WARN per foreign child in this JVM, whichever generator finds it. */
    private static final ForeignNodeWarnings WARNINGS = new ForeignNodeWarnings(LOG, "coord-naming IDs");

    /**
     * What Coord's sequence counter holds: too short for Curator's {@code getLong} and {@code getInt}
     * (a Curator counter pointed at it fails with "Corrupted data for node ...") and readable in zkCli.
     */
    static final byte[] SEQUENCE_MARK = "seq".getBytes(StandardCharsets.US_ASCII);

    private IdNodes() {
    }

    /**
     * What is wrong with {@code data} in a counter node, or null if it may be Coord's: 4 and 8 bytes
     * are a Curator counter's (named with the value Curator would read), never Coord's.
     * {@code sequence}: anything but nothing or the mark is foreign there too.
     */
    static String counterProblem(byte[] data, boolean sequence) {
        if (data == null || data.length == 0) {
            return null;
        }
        if (data.length == 8) {
            return "8 bytes " + hex(data) + ", as Curator's DistributedAtomicLong stores its value (it reads "
                    + ByteBuffer.wrap(data).getLong() + ")";
        }
        if (data.length == 4) {
            return "4 bytes " + hex(data) + ", as Curator's SharedCount or DistributedAtomicInteger stores its value"
                    + " (it reads " + ByteBuffer.wrap(data).getInt() + ")";
        }
        if (sequence && !java.util.Arrays.equals(data, SEQUENCE_MARK)) {
            return data.length + " bytes " + hex(data) + ", which Coord's sequence counter never holds";
        }
        return null;
    }

    /** What is wrong with {@code data} in the name node {@code /ids/{name}} (Coord keeps none there), or null. */
    static String nameNodeProblem(byte[] data) {
        if (data == null || data.length == 0) {
            return null;
        }
        String problem = counterProblem(data, true);
        return problem != null ? problem : data.length + " bytes " + hex(data) + ", which Coord never stores there";
    }

    /**
     * Reads {@code /ids/{name}}, its children and {@code counter} (one of them) and throws
     * {@link ForeignNodesException} if the name node or the counter holds bytes that are not
     * Coord's; any child other than Coord's two counters is logged at WARN once. Writes nothing.
     */
    static void check(Zk zk, String name, CoordPath counter) throws InterruptedException {
        CoordPath dir = Layout.IDS.child(name);
        CuratorFramework curator = zk.curator();
        byte[] own = zk.call(dir, () -> dataOrNull(curator, dir));
        String problem = nameNodeProblem(own);
        if (problem != null) {
            throw refusal(name, Layout.IDS, name, dir, problem);
        }
        byte[] data = zk.call(counter, () -> dataOrNull(curator, counter));
        problem = counterProblem(data, counter.name().equals(Layout.SEQUENCE));
        if (problem != null) {
            throw refusal(name, counter, problem);
        }
        if (own != null) {
            List<String> children = children(zk, dir);
            WARNINGS.check(dir, children, IdNodes::isCounter, "only the counters " + Layout.SEQUENCE + " and " + Layout.BLOCKS);
        }
    }

    /**
     * Every node of ID name {@code name} that is not Coord's, each with why ("{path}: {why}"); empty
     * if all are Coord's (or there are none). For inspection: reads, never writes, never throws for them.
     */
    static List<String> foreign(Zk zk, String name) throws InterruptedException {
        CoordPath dir = Layout.IDS.child(CoordPath.validateName(name));
        CuratorFramework curator = zk.curator();
        byte[] own = zk.call(dir, () -> dataOrNull(curator, dir));
        List<String> out = new ArrayList<>();
        if (own == null) {
            return out;
        }
        String problem = nameNodeProblem(own);
        if (problem != null) {
            out.add(dir + ": " + problem);
        }
        for (String child : children(zk, dir).stream().sorted().toList()) {
            if (!isCounter(child)) {
                out.add(dir.value() + "/" + child + ": a node SequenceIds and BlockIds do not use");
                continue;
            }
            CoordPath counter = dir.child(child);
            byte[] data = zk.call(counter, () -> dataOrNull(curator, counter));
            problem = counterProblem(data, child.equals(Layout.SEQUENCE));
            if (problem != null) {
                out.add(counter + ": " + problem);
            }
        }
        return out;
    }

    private static boolean isCounter(String child) {
        return child.equals(Layout.SEQUENCE) || child.equals(Layout.BLOCKS);
    }

    private static List<String> children(Zk zk, CoordPath dir) throws InterruptedException {
        return zk.call(dir, () -> {
            try {
                return zk.curator().getChildren().forPath(dir.value());
            } catch (KeeperException.NoNodeException gone) {
                return List.<String>of();
            }
        });
    }

    private static byte[] dataOrNull(CuratorFramework curator, CoordPath path) throws Exception {
        try {
            return curator.getData().forPath(path.value());
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
    }

    /** The refusal of counter node {@code counter} of ID name {@code name}, which holds what {@code problem} says. */
    static ForeignNodesException refusal(String name, CoordPath counter, String problem) {
        return refusal(name, counter.parent(), counter.name(), counter, problem);
    }

    private static ForeignNodesException refusal(String name, CoordPath dir, String node, CoordPath path, String problem) {
        return new ForeignNodesException("ID name '" + name + "': " + path + " holds " + problem + ", not Coord's counter."
                + " A Curator counter and Coord's IDs cannot share a node (Curator's IDs are the value it stores, Coord's"
                + " come from the node's zxid and version, and each would overwrite the other's). Nothing was written."
                + " Give Coord a new ID name whose IDs start above the Curator counter's, or stop every Curator client"
                + " of that counter and delete it (docs/MIGRATING.md).", dir, List.of(node));
    }

    /** {@code data} as hex bytes, at most the first 16. */
    static String hex(byte[] data) {
        StringBuilder out = new StringBuilder();
        int shown = Math.min(data.length, 16);
        for (int i = 0; i < shown; i++) {
            out.append(i == 0 ? "" : " ").append(String.format("%02x", data[i] & 0xff));
        }
        return out.append(shown < data.length ? " ..." : "").toString();
    }
}
