package io.coord.barrier;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.SessionExpiredException;
import io.coord.internal.WakeSignal;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** The {@link Gate} on the persistent node {@code /gates/{name}}. */
final class ZkGate implements Gate {
    static final String GATES = "gates";

    private final Zk zk;
    private final String name;
    private final CoordPath path;

    ZkGate(Zk zk, String name) {
        this.zk = zk;
        this.name = name;
        this.path = CoordPath.of(GATES, name);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
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

    @Override
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

    @Override
    public boolean isSet() throws InterruptedException {
        return zk.call(path, () -> zk.curator().checkExists().forPath(path.value())) != null;
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be >= 0, got " + timeout);
        }
        long deadline = System.nanoTime() + (timeout.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365) : timeout).toNanos();
        // Closing the signal removes the watch; it wakes on every session change too.
        try (WakeSignal signal = new WakeSignal(zk).followSessions()) {
            while (true) {
                long epoch = signal.epoch();
                try {
                    Stat stat = zk.call(path, () -> signal.watching().checkExists().usingWatcher(signal).forPath(path.value()));
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
        }
    }

    @Override
    public String toString() {
        return "Gate[" + path + "]";
    }
}
