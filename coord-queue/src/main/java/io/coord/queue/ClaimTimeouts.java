package io.coord.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claim timeouts, judged by ZooKeeper's clock only. A claim node's data carries its timeout
 * ({@code timeoutMillis}, written at claim and rewritten by every extend); its deadline is its
 * {@code mtime} (the server's time of the claim or of the last extend, a versioned setData) plus
 * that timeout. To take a claim over, a consumer reads the claim node (mtime {@code M}, version
 * {@code v}), writes the queue's {@code claims} node to learn the server's time now ({@code N},
 * that write's mtime: a time after the read), and if {@code N - M > timeout} deletes the claim
 * node at version {@code v}. The version check makes an extend that came in between win; the
 * delete fences the old claimer out (its endings delete its claim node first and fail). The watch
 * then sees the claim gone and the task is claimable again, ahead of later tasks by its sequence.
 *
 * <p>Local time only schedules the look: a claim is looked at once this process has not seen it
 * written for the local timeout ({@link TaskIndex#claimsUnseenFor}); a look that finds it not due
 * yet looks again when the server says it will be. Runs on the claiming thread (never an event
 * thread), one thread of the process at a time.
 */
final class ClaimTimeouts {
    private static final Logger LOG = LoggerFactory.getLogger(ClaimTimeouts.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String TIMEOUT_FIELD = "timeoutMillis";
    /** Look again after this when a look could not be made (connection trouble). */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Zk zk;
    private final QueueLayout layout;
    /** The queue's index, started on first use. */
    private final Supplier<TaskIndex> index;
    private final long timeoutNanos;
    private final AtomicBoolean looking = new AtomicBoolean();

    ClaimTimeouts(Zk zk, QueueLayout layout, Supplier<TaskIndex> index, QueueOptions options) {
        this.zk = zk;
        this.layout = layout;
        this.index = index;
        this.timeoutNanos = options.claimTimeout().toNanos();
    }

    /** A claim node's data: which task, who, when (owner's clock, for people), and its timeout (0: none). */
    static byte[] claimInfo(String task, String owner, long claimedAtMillis, long timeoutMillis) {
        ObjectNode info = JsonNodeFactory.instance.objectNode();
        info.put("task", task);
        info.put("owner", owner);
        info.put("claimedAt", claimedAtMillis);
        if (timeoutMillis > 0) {
            info.put(TIMEOUT_FIELD, timeoutMillis);
        }
        return info.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The timeout a claim node's data carries; 0 if none (a claim made without a timeout, or unreadable data). */
    static long timeoutMillis(byte[] data) {
        if (data == null || data.length == 0) {
            return 0;
        }
        try {
            JsonNode node = JSON.readTree(data);
            return node != null && node.path(TIMEOUT_FIELD).canConvertToLong() ? Math.max(0, node.path(TIMEOUT_FIELD).asLong()) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** When a claim may next be due, for a claimer's wait; {@code Long.MAX_VALUE} without timeouts. */
    long nextLookNanos() {
        return timeoutNanos == 0 ? Long.MAX_VALUE : index.get().nextClaimLookNanos(timeoutNanos);
    }

    /**
     * Looks at every claim this process has not seen written for the timeout and takes over those
     * past their deadline by the server's clock. Returns how many it took over. Does nothing
     * without a claim timeout, or while another thread of this process is looking.
     */
    int takeOverDue() throws InterruptedException {
        if (timeoutNanos == 0 || !looking.compareAndSet(false, true)) {
            return 0;
        }
        try {
            int taken = 0;
            for (String claim : index.get().claimsUnseenFor(timeoutNanos, System.nanoTime())) {
                if (takeOverIfDue(claim)) {
                    taken++;
                }
            }
            return taken;
        } finally {
            looking.set(false);
        }
    }

    private boolean takeOverIfDue(String claimName) throws InterruptedException {
        CoordPath claimPath = layout.claim(claimName);
        long lookedNanos = System.nanoTime();
        try {
            Stat claim = new Stat();
            byte[] data = zk.curator().getData().storingStatIn(claim).forPath(claimPath.value());
            long timeout = timeoutMillis(data);
            if (timeout == 0) {
                // Made by a consumer without a timeout: it ends only with its session. Looked at again rarely.
                index.get().claimSeen(claimName, lookedNanos + TimeUnit.HOURS.toNanos(1));
                return false;
            }
            long serverNow = zk.curator().setData().forPath(layout.claims.value(), new byte[0]).getMtime();
            long idle = serverNow - claim.getMtime();
            if (idle <= timeout) {
                // Not due by the server's clock: look again when it will be.
                index.get().claimSeen(claimName, lookedNanos - timeoutNanos + TimeUnit.MILLISECONDS.toNanos(timeout - idle + 1));
                return false;
            }
            zk.curator().delete().withVersion(claim.getVersion()).forPath(claimPath.value());
            LOG.info("claim {} timed out (not extended for {} ms by ZooKeeper's clock, its timeout {} ms); its task is"
                    + " redelivered and its claimer's endings are refused", claimPath, idle, timeout);
            return true;
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            index.get().claimSeen(claimName, lookedNanos); // ended, or extended since the read: the watch tells
            return false;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            LOG.debug("could not look at claim {} for its timeout; looking again later", claimPath, e);
            index.get().claimSeen(claimName, lookedNanos - timeoutNanos + RETRY_NANOS);
            return false;
        }
    }
}
