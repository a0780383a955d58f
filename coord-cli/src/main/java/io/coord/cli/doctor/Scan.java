package io.coord.cli.doctor;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.NotAuthorizedException;
import io.coord.lock.LockInfo;
import io.coord.lock.Locks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * What every check reads through during one pass: the client, the thresholds, the pass's clock,
 * and the few raw reads no recipe's inspection API offers (a node's children and stat). The live
 * sessions are asked for once, on first use.
 */
final class Scan {
    final CoordClient client;
    final DoctorOptions options;
    final Instant now;
    private LiveSessions live;
    private List<LockInfo> locks;

    Scan(CoordClient client, DoctorOptions options, Instant now) {
        this.client = client;
        this.options = options;
        this.now = now;
    }

    CuratorFramework curator() {
        return client.curator();
    }

    /** The children of {@code path} (namespace-relative), sorted; none if it does not exist. */
    List<String> children(CoordPath path) throws InterruptedException {
        try {
            return client.curator().getChildren().forPath(path.value()).stream().sorted().toList();
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw e;
        } catch (KeeperException.NoAuthException e) {
            throw new NotAuthorizedException("no READ permission on " + path + " for this client's identities", e);
        } catch (Exception e) {
            throw new CoordException("could not list " + path + ": " + e.getMessage(), e);
        }
    }

    /** The stat of {@code path}, or empty if it does not exist. */
    Optional<Stat> stat(CoordPath path) throws InterruptedException {
        try {
            return Optional.ofNullable(client.curator().checkExists().forPath(path.value()));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new CoordException("could not stat " + path + ": " + e.getMessage(), e);
        }
    }

    /** Every lock under {@code /locks}, read once per pass (three checks look at them). */
    List<LockInfo> locks() throws InterruptedException {
        if (locks == null) {
            locks = Locks.list(client, Locks.ROOT);
        }
        return locks;
    }

    /** The sessions some server holds a connection for, asked for once per pass. */
    LiveSessions live() throws InterruptedException {
        if (live == null) {
            live = LiveSessions.ask(client.settings().connectString(), options.probeTimeout());
        }
        return live;
    }

    /** {@code since} to {@link #now}, never negative. */
    Duration age(Instant since) {
        Duration d = Duration.between(since, now);
        return d.isNegative() ? Duration.ZERO : d;
    }

    /** A duration as people read it: 42s, 17m, 3h. */
    static String human(Duration d) {
        long s = d.toSeconds();
        return s < 120 ? s + "s" : s < 7200 ? (s / 60) + "m" : (s / 3600) + "h";
    }

    static String hex(long sessionId) {
        return "0x" + Long.toHexString(sessionId);
    }
}
