package io.coord.barrier;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.SessionExpiredException;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A simple gate ("wait until released"), like Curator's {@code DistributedBarrier}: someone
 * {@link #set()}s it, any number of processes {@link #await} it, and {@link #remove()} lets them
 * all through. The gate is the persistent node {@code /gates/{name}}; set means it exists. It
 * stays set when its setter dies: it is a decision, not a lease.
 *
 * <p>{@link #await} returns true only after a read shows the node gone: watch events, connection
 * flaps and spurious wake-ups only cause another read. SUSPENDED: it keeps waiting and reads
 * again after the reconnect. Interrupt: {@link InterruptedException}, the gate unchanged.
 */
public final class Gate {
    static final String GATES = "gates";

    private final Zk zk;
    private final String name;
    private final CoordPath path;

    private Gate(Zk zk, String name) {
        this.zk = zk;
        this.name = name;
        this.path = CoordPath.of(GATES, name);
    }

    /** The gate {@code name}. */
    public static Gate create(CoordClient client, String name) {
        Objects.requireNonNull(client, "client");
        CoordPath.validateName(name);
        return new Gate(Zk.of(client), name);
    }

    public String name() {
        return name;
    }

    /** Sets (closes) the gate; returns false if it was already set. */
    public boolean set() throws InterruptedException {
        byte[] who = ("set by session " + zk.liveSession().idHex()).getBytes(StandardCharsets.UTF_8);
        try {
            zk.call(path, () -> zk.curator().create().creatingParentContainersIfNeeded().forPath(path.value(), who));
            return true;
        } catch (CoordException e) {
            if (e.getCause() instanceof KeeperException.NodeExistsException) {
                return false;
            }
            throw e;
        }
    }

    /** Removes (opens) the gate, releasing every waiter; returns false if it was not set. */
    public boolean remove() throws InterruptedException {
        try {
            zk.call(path, () -> zk.curator().delete().guaranteed().forPath(path.value()));
            return true;
        } catch (CoordException e) {
            if (e.getCause() instanceof KeeperException.NoNodeException) {
                return false;
            }
            throw e;
        }
    }

    /** Whether the gate is set right now. */
    public boolean isSet() throws InterruptedException {
        return zk.call(path, () -> zk.curator().checkExists().forPath(path.value())) != null;
    }

    /**
     * Waits until the gate is not set, at most {@code timeout}: true once a read shows the gate
     * node absent (at once if it is not set), false if {@code timeout} passed first. Connection
     * trouble that lasts past the timeout also ends the wait with false; the gate's state is then
     * unknown to this caller.
     */
    public boolean await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be >= 0, got " + timeout);
        }
        long deadline = System.nanoTime() + (timeout.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365) : timeout).toNanos();
        WatcherRemoveCuratorFramework watching = zk.curator().newWatcherRemoveCuratorFramework();
        try (Signal signal = Signal.open(zk)) {
            while (true) {
                long epoch = signal.epoch();
                try {
                    Stat stat = zk.call(path, () -> watching.checkExists().usingWatcher(signal).forPath(path.value()));
                    if (stat == null) {
                        return true;
                    }
                } catch (ConnectionLostException | SessionExpiredException e) {
                    // read again after the next session event (or soon)
                    long now = System.nanoTime();
                    signal.await(epoch, deadline - now < 500_000_000L ? deadline : now + 500_000_000L);
                    if (System.nanoTime() - deadline >= 0) {
                        return false;
                    }
                    continue;
                }
                if (!signal.await(epoch, deadline)) {
                    return false;
                }
            }
        } finally {
            watching.removeWatchers();
        }
    }

    @Override
    public String toString() {
        return "Gate[" + path + "]";
    }
}
