package io.coord.lock;

import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.LockLostException;
import io.coord.SessionExpiredException;
import io.coord.TooManyChildrenException;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.WakeSignal;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.zookeeper.KeeperException;

/**
 * InterProcessSemaphoreV2's protocol (see {@link SemaphoreLayout}), so Coord and Curator clients
 * share one semaphore: hold the gate ({@code locks/}, Coord's Curator-compatible mutex), create our
 * lease node in {@code leases/}, wait (a children watch, bounded) until the leases number at most
 * the permits, release the gate. Only the gate's holder adds a lease, so at most one waits in
 * {@code leases/} and grants follow the gate's order. The lease is a NodeLease on our lease node:
 * its czxid is the token, and it is LOST with the session.
 */
final class ZkSemaphore implements Semaphore {
    private static final ZkLockQueue.Request GATE = ZkLockQueue.Request.of(WaitRule.Type.LOCK, Set.of(WaitRule.Type.LOCK));

    private final CoordPath path;
    private final CoordPath leases;
    private final ZkLockQueue gate;
    private final Zk zk;
    private final int permits;
    private final CuratorSemaphore view;

    ZkSemaphore(ZkLockQueue gate, CoordPath path, int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("a semaphore needs at least 1 permit, got " + permits);
        }
        if (path.isRoot()) {
            throw new IllegalArgumentException("a semaphore needs its own node; \"/\" cannot be a semaphore path");
        }
        this.path = path;
        this.leases = path.child(SemaphoreLayout.LEASES);
        this.gate = gate;
        this.zk = gate.zk();
        this.permits = permits;
        this.view = new CuratorSemaphore(this);
    }

    @Override
    public CoordPath path() {
        return path;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public LockLease acquire(Duration timeout) throws InterruptedException {
        return tryAcquire(timeout).orElseThrow(() -> new CoordTimeoutException("no permit of semaphore " + path
                + " (" + permits + " permits) was granted within " + timeout + "; our node was removed"));
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration timeout) throws InterruptedException {
        return acquireNanos(Locks.nanos(timeout));
    }

    @Override
    public Optional<LockLease> tryAcquire() throws InterruptedException {
        return acquireNanos(0);
    }

    @Override
    public CuratorSemaphore asCuratorSemaphore() {
        return view;
    }

    /** {@code timeoutNanos} < 0 waits until granted or interrupted. */
    Optional<LockLease> acquireNanos(long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        String outcome = "failed";
        try {
            Optional<Holding> turn = gate.acquire(GATE, timeoutNanos);
            if (turn.isEmpty()) {
                outcome = "timeout";
                return Optional.empty();
            }
            try {
                long left = timeoutNanos < 0 ? -1 : Math.max(0, timeoutNanos - (System.nanoTime() - start));
                Optional<LockLease> lease = admit(left).map(ZkLockLease::new);
                outcome = lease.isPresent() ? "acquired" : "timeout";
                return lease;
            } finally {
                turn.get().releaseOne(); // the gate: the next client may add its lease
            }
        } catch (InterruptedException e) {
            outcome = "interrupted";
            throw e;
        } finally {
            gate.metrics().waited(WaitRule.Type.LEASE, outcome, System.nanoTime() - start);
        }
    }

    /** Holding the gate: checks the layout and the count, adds our lease, waits for room. Empty on timeout (node removed). */
    private Optional<Holding> admit(long timeoutNanos) throws InterruptedException {
        List<String> foreign = SemaphoreLayout.foreignAtRoot(children(path));
        if (!foreign.isEmpty()) {
            throw SemaphoreLayout.refusal(path, path, foreign, "nothing was acquired");
        }
        // Before our lease: a client with another count than the path's must take no permit.
        SemaphorePermits.check(zk, path, permits);
        boolean forever = timeoutNanos < 0;
        long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        HolderInfo info = HolderInfo.of(gate.owner(), WaitRule.Type.LEASE, permits);
        LeaseNodes.Created created = LeaseNodes.create(zk, leases, WaitRule.Type.LEASE.prefix, info.encode(leases), true);
        NodeLease lease = LeaseNodes.lease(zk, created);
        String ours = created.token().node().name();
        boolean granted = false;
        WakeSignal wake = null; // set on the first wait: an uncontended acquire needs no watch
        try {
            long seen = 0;
            while (true) {
                List<String> children = wake == null ? children(leases) : watchedChildren(wake);
                decide(children, ours, created);
                if (children.size() <= permits) {
                    Holding holding = gate.hold(WaitRule.Type.LEASE, path, lease, info, gate.options().clock().instant());
                    granted = true;
                    return Optional.of(holding);
                }
                if (!forever && System.nanoTime() - deadline >= 0) {
                    return Optional.empty();
                }
                if (wake == null) {
                    wake = new WakeSignal(zk).followSession(created.session());
                    seen = wake.epoch();
                    continue; // read again, now with the watch set
                }
                // Wait for the children to change; a connection event alone is no reason to read
                // (the watch survives a reconnect of the same session).
                while (true) {
                    WakeSignal.Wakes wakes = wake.take();
                    if (wakes.sessionEnded()) {
                        throw sessionEnded(created);
                    }
                    if (!wakes.changed().isEmpty() || !wakes.gone().isEmpty()) {
                        break;
                    }
                    if (forever) {
                        wake.await(seen);
                    } else if (!wake.await(seen, deadline)) {
                        return Optional.empty();
                    }
                    seen = wake.epoch();
                }
                seen = wake.epoch();
            }
        } finally {
            if (wake != null) {
                wake.close();
            }
            if (!granted) {
                lease.releaseKeepingNode(); // never granted: it ends here, and remove() deletes the node
                gate.remove(created);
            }
        }
    }

    /** Refuses what Coord cannot count by, and a lease node of ours that went. */
    private void decide(List<String> children, String ours, LeaseNodes.Created created) {
        if (children.size() > gate.options().maxQueueLength()) {
            throw new TooManyChildrenException("semaphore " + path + " has " + children.size() + " leases, over its maxQueueLength of "
                    + gate.options().maxQueueLength() + "; our node " + created.token().node() + " was removed");
        }
        List<String> foreign = SemaphoreLayout.foreignLeases(children);
        if (!foreign.isEmpty()) {
            throw SemaphoreLayout.refusal(path, leases, foreign, "our node " + ours + " was removed");
        }
        if (!children.contains(ours)) {
            if (created.session().state().isTerminal()) {
                throw sessionEnded(created);
            }
            throw new LockLostException("our node " + created.token().node() + " of semaphore " + path
                    + " (token " + created.token() + ") was deleted by someone else while it waited");
        }
    }

    private SessionExpiredException sessionEnded(LeaseNodes.Created created) {
        return new SessionExpiredException("session " + created.session().idHex() + " ended while waiting for semaphore "
                + path + "; its node " + created.token().node() + " is gone with it");
    }

    private List<String> watchedChildren(WakeSignal wake) throws InterruptedException {
        try {
            return wake.watching().getChildren().usingWatcher(wake).forPath(leases.value());
        } catch (KeeperException.NoNodeException e) {
            return List.of(); // our node is gone with it: decide() says how
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, leases);
        }
    }

    private List<String> children(CoordPath node) throws InterruptedException {
        try {
            return zk.curator().getChildren().forPath(node.value());
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, node);
        }
    }

    Zk zk() {
        return zk;
    }

    @Override
    public String toString() {
        return "Semaphore[" + path + ", " + permits + " permits]";
    }
}
