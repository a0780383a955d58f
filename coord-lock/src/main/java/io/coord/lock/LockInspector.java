package io.coord.lock;

import io.coord.CodecException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.ValueTooLargeException;
import io.coord.internal.Zk;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads a lock's queue for people: each node's stat (session, czxid, ctime) and holder info, and
 * {@link WaitRule}'s verdict on who holds, and the children no lock kind understands, by name.
 * Read-only; a node that vanishes while being read is left out.
 */
final class LockInspector {
    /** How many nodes {@link #list} visits before it asks for a narrower prefix. */
    static final int MAX_VISITED = 10_000;

    private final Zk zk;

    LockInspector(Zk zk) {
        this.zk = zk;
    }

    LockInfo inspect(CoordPath path) throws InterruptedException {
        return inspect(path, children(path));
    }

    /** Every lock at or under {@code prefix}, in path order. */
    List<LockInfo> list(CoordPath prefix) throws InterruptedException {
        List<LockInfo> out = new ArrayList<>();
        Deque<CoordPath> todo = new ArrayDeque<>();
        todo.add(prefix);
        int visited = 0;
        while (!todo.isEmpty()) {
            CoordPath next = todo.poll();
            if (++visited > MAX_VISITED) {
                throw new CoordException("more than " + MAX_VISITED + " nodes under " + prefix + "; give a narrower prefix");
            }
            List<String> children = children(next);
            if (!WaitRule.queue(children, EnumSet.allOf(WaitRule.Type.class)).isEmpty()) {
                out.add(inspect(next, children));
                continue; // lock nodes are ephemeral: nothing below them
            }
            children.stream().sorted().forEach(c -> todo.add(next.child(c)));
        }
        out.sort((a, b) -> a.path().compareTo(b.path()));
        return out;
    }

    private LockInfo inspect(CoordPath path, List<String> children) throws InterruptedException {
        List<LockInfo.Entry> holders = new ArrayList<>();
        List<LockInfo.Entry> waiters = new ArrayList<>();
        List<WaitRule.Node> all = WaitRule.queue(children, EnumSet.allOf(WaitRule.Type.class));
        List<Read> reads = new ArrayList<>();
        int permits = 1;
        for (WaitRule.Node node : all) {
            Read read = read(path, node);
            if (read != null) {
                reads.add(read);
                if (read.info != null && read.info.permits() != null) {
                    permits = Math.max(permits, read.info.permits());
                }
            }
        }
        List<WaitRule.Node> present = reads.stream().map(Read::node).toList();
        for (Read read : reads) {
            Set<WaitRule.Type> family = switch (read.node.type()) {
                case LOCK -> Set.of(WaitRule.Type.LOCK);
                case READ, WRITE -> Set.of(WaitRule.Type.READ, WaitRule.Type.WRITE);
                case LEASE -> Set.of(WaitRule.Type.LEASE);
            };
            List<WaitRule.Node> queue = present.stream().filter(n -> family.contains(n.type())).toList();
            int slots = read.node.type() == WaitRule.Type.LEASE ? permits : 1;
            (WaitRule.holds(queue, read.node, slots) ? holders : waiters).add(read.entry(path));
        }
        return new LockInfo(path, holders, waiters, WaitRule.foreign(children, EnumSet.allOf(WaitRule.Type.class)));
    }

    private record Read(WaitRule.Node node, Stat stat, HolderInfo info) {
        LockInfo.Entry entry(CoordPath parent) {
            return new LockInfo.Entry(parent.child(node.name()), node.type().label(), stat.getEphemeralOwner(), stat.getCzxid(),
                    Instant.ofEpochMilli(stat.getCtime()),
                    info == null || info.heldSince() == null ? null : Instant.ofEpochMilli(info.heldSince()),
                    info == null ? null : info.host(), info == null ? null : info.pid(), info == null ? null : info.owner());
        }
    }

    private Read read(CoordPath parent, WaitRule.Node node) throws InterruptedException {
        CoordPath path = parent.child(node.name());
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.curator().getData().storingStatIn(stat).forPath(path.value());
        } catch (KeeperException.NoNodeException gone) {
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, path);
        }
        HolderInfo info;
        try {
            info = HolderInfo.CODEC.decode(path, data);
        } catch (CodecException | ValueTooLargeException e) {
            info = null; // not written by Coord (e.g. Curator's lock nodes hold an IP address)
        }
        return new Read(node, stat, info);
    }

    private List<String> children(CoordPath path) throws InterruptedException {
        try {
            return zk.curator().getChildren().forPath(path.value());
        } catch (KeeperException.NoNodeException e) {
            return List.of(); // no node: nobody holds or waits (an unused lock's container is gone)
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, path);
        }
    }
}
