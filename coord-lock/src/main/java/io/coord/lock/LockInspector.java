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

    /** The lock kinds queued directly under a lock path (a semaphore's leases are a level down: {@link SemaphoreLayout}). */
    private static final Set<WaitRule.Type> QUEUED = EnumSet.of(WaitRule.Type.LOCK, WaitRule.Type.READ, WaitRule.Type.WRITE);

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
            // lease- directly under a path: Coord's semaphore before it took V2's layout, shown as foreign
            if (isSemaphore(next, children) || !WaitRule.queue(children, EnumSet.allOf(WaitRule.Type.class)).isEmpty()) {
                out.add(inspect(next, children));
                continue; // lock nodes are ephemeral: nothing below them
            }
            children.stream().sorted().forEach(c -> todo.add(next.child(c)));
        }
        out.sort((a, b) -> a.path().compareTo(b.path()));
        return out;
    }

    /**
     * While listing: a node with both {@code locks} and {@code leases} children, or {@code leases}
     * holding leases ({@code /locks/locks/x} is a mutex's path, not a semaphore).
     */
    private boolean isSemaphore(CoordPath node, List<String> children) throws InterruptedException {
        return children.contains(SemaphoreLayout.LEASES) && (children.contains(SemaphoreLayout.LOCKS)
                || !SemaphoreLayout.leases(children(node.child(SemaphoreLayout.LEASES))).isEmpty());
    }

    private LockInfo inspect(CoordPath path, List<String> children) throws InterruptedException {
        if (SemaphoreLayout.hasSemaphoreChild(children)) {
            return inspectSemaphore(path, children);
        }
        List<LockInfo.Entry> holders = new ArrayList<>();
        List<LockInfo.Entry> waiters = new ArrayList<>();
        List<Read> reads = reads(path, WaitRule.queue(children, QUEUED));
        List<WaitRule.Node> present = reads.stream().map(Read::node).toList();
        for (Read read : reads) {
            Set<WaitRule.Type> family = read.node.type() == WaitRule.Type.LOCK ? Set.of(WaitRule.Type.LOCK)
                    : Set.of(WaitRule.Type.READ, WaitRule.Type.WRITE);
            List<WaitRule.Node> queue = present.stream().filter(n -> family.contains(n.type())).toList();
            (WaitRule.holds(queue, read.node) ? holders : waiters).add(read.entry(path));
        }
        return new LockInfo(path, holders, waiters, WaitRule.foreign(children, QUEUED));
    }

    /**
     * A semaphore (V2's layout): the first {@code permits} leases in sequence order hold (only the
     * gate's holder adds one, so any beyond them is that client waiting for room), then the
     * clients queued at the gate. Permits: the count recorded in the semaphore's node, else the
     * permits a Coord lease names; with neither (Curator's clients only), every lease holds. The
     * client being admitted is listed once (by its lease, or at the head of the gate's queue).
     * Foreign: other children of the path by name, those of {@code leases/} and {@code locks/}
     * as {@code leases/<name>} and {@code locks/<name>}.
     */
    private LockInfo inspectSemaphore(CoordPath path, List<String> children) throws InterruptedException {
        CoordPath leasesPath = path.child(SemaphoreLayout.LEASES);
        CoordPath locksPath = path.child(SemaphoreLayout.LOCKS);
        List<String> leaseChildren = children(leasesPath);
        List<String> lockChildren = children(locksPath);
        List<Read> leases = reads(leasesPath, SemaphoreLayout.leases(leaseChildren));
        Integer permits = SemaphorePermits.recordedIn(path, data(path));
        for (Read read : leases) {
            if (permits == null && read.info != null && read.info.permits() != null) {
                permits = read.info.permits();
            }
        }
        int holding = permits == null ? leases.size() : Math.min(permits, leases.size());
        List<LockInfo.Entry> holders = new ArrayList<>();
        List<LockInfo.Entry> waiters = new ArrayList<>();
        for (int i = 0; i < leases.size(); i++) {
            (i < holding ? holders : waiters).add(leases.get(i).entry(leasesPath));
        }
        List<Read> gate = reads(locksPath, WaitRule.queue(lockChildren, Set.of(WaitRule.Type.LOCK)));
        // A lease beyond the permits is the gate holder's, waiting for room: listed once, as that lease.
        long admitting = leases.size() > holding ? leases.get(leases.size() - 1).stat.getEphemeralOwner() : 0;
        for (int i = 0; i < gate.size(); i++) {
            if (i > 0 || admitting == 0 || gate.get(i).stat.getEphemeralOwner() != admitting) {
                waiters.add(gate.get(i).entry(locksPath));
            }
        }
        List<String> foreign = new ArrayList<>(SemaphoreLayout.foreignAtRoot(children));
        SemaphoreLayout.foreignLeases(leaseChildren).forEach(n -> foreign.add(SemaphoreLayout.LEASES + "/" + n));
        WaitRule.foreign(lockChildren, Set.of(WaitRule.Type.LOCK)).forEach(n -> foreign.add(SemaphoreLayout.LOCKS + "/" + n));
        return new LockInfo(path, holders, waiters, foreign);
    }

    private List<Read> reads(CoordPath parent, List<WaitRule.Node> nodes) throws InterruptedException {
        List<Read> reads = new ArrayList<>();
        for (WaitRule.Node node : nodes) {
            Read read = read(parent, node);
            if (read != null) {
                reads.add(read);
            }
        }
        return reads;
    }

    private byte[] data(CoordPath path) throws InterruptedException {
        try {
            return zk.curator().getData().forPath(path.value());
        } catch (KeeperException.NoNodeException gone) {
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, path);
        }
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
