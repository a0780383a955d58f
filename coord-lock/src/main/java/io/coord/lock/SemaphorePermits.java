package io.coord.lock;

import io.coord.Codec;
import io.coord.CodecException;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One semaphore path, one permit count. Each client decides with its own count, so two counts on
 * one path would each admit by their own rule (3 and 5 permits: up to 5 hold at once). The first
 * acquire records its count as JSON {@code {"permits":N}} in the semaphore's own node; every
 * later acquire compares and refuses another count.
 *
 * <p>Checked while we hold the semaphore's gate ({@code locks/}) and before our lease is created:
 * a container parent with a descendant is not reaped, so the record we read is the one our gate
 * node stands under. The semaphore's own node is a place Curator's InterProcessSemaphoreV2 never
 * reads (it neither records nor compares counts), so the record changes nothing for its clients. A node with no data (made
 * before counts were recorded, or just created as a parent) gets ours, by compare-and-set on its
 * version: of two first clients, one records and the other compares. When the container is reaped
 * (no node left), its count goes with it and the next first client records again.
 */
final class SemaphorePermits {
    /** The record in the semaphore's node. */
    record Recorded(int permits) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(SemaphorePermits.class);
    private static final Codec<Recorded> CODEC = Codec.json(Recorded.class).withLimit(256);
    /** Record, or lose the record race once and compare; more means the node keeps changing under us. */
    private static final int ATTEMPTS = 3;

    private SemaphorePermits() {
    }

    /**
     * Records {@code permits} at {@code path} or checks it against the recorded count.
     *
     * @throws IllegalArgumentException naming the path and both counts when they differ
     */
    static void check(Zk zk, CoordPath path, int permits) throws InterruptedException {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Stat stat = new Stat();
            byte[] data;
            try {
                data = zk.curator().getData().storingStatIn(stat).forPath(path.value());
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw zk.translate(e, path);
            }
            if (data != null && data.length > 0) {
                int recorded = decode(path, data).permits();
                if (recorded != permits) {
                    throw new IllegalArgumentException("semaphore " + path + " has " + recorded
                            + " permits (recorded by the first client to use it), but this client asked for " + permits
                            + "; every client of one semaphore must pass the same count; nothing was acquired");
                }
                return;
            }
            try {
                zk.curator().setData().withVersion(stat.getVersion()).forPath(path.value(), CODEC.encode(path, new Recorded(permits)));
                return;
            } catch (KeeperException.BadVersionException e) {
                // another client recorded first: compare against its count
            } catch (KeeperException.NoAuthException e) {
                // An ACL that lets us queue but not write the semaphore's node: we cannot record,
                // so we cannot compare either. Acquire as before records existed, and say so.
                LOG.warn("cannot record the permit count {} in semaphore node {} (no write permission); counts of its clients"
                        + " are not compared until a client that may write it records one", permits, path);
                return;
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw zk.translate(e, path);
            }
        }
        throw new IllegalStateException("the node of semaphore " + path + " kept changing while its permit count ("
                + permits + ") was recorded; nothing was acquired");
    }

    /** The count recorded in {@code data} (the semaphore node's), or null if none is (inspection: never fails). */
    static Integer recordedIn(CoordPath path, byte[] data) {
        if (data == null || data.length == 0) {
            return null;
        }
        try {
            return decode(path, data).permits();
        } catch (IllegalStateException e) {
            return null;
        }
    }

    private static Recorded decode(CoordPath path, byte[] data) {
        try {
            Recorded r = CODEC.decode(path, data);
            if (r.permits() < 1) {
                throw new CodecException("node " + path + " records " + r.permits() + " permits");
            }
            return r;
        } catch (CodecException e) {
            throw new IllegalStateException("the node of semaphore " + path + " holds data that is not a permit record"
                    + " (" + e.getMessage() + "); is another recipe using this path? Nothing was acquired", e);
        }
    }
}
