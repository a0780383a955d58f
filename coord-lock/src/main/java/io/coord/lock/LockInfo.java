package io.coord.lock;

import io.coord.CoordPath;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a lock looks like right now, for operators and the CLI ({@code coord lock show}): who
 * holds it and who waits, in queue order. A snapshot: by the time it is read it may have changed.
 *
 * @param path    the lock node
 * @param holders nodes that hold (one for a lock or write; several readers or semaphore leases,
 *                which are nodes of the semaphore's {@code leases/})
 * @param waiters nodes that wait, first in line first; for a semaphore, the lease of the client
 *                waiting for room, then the clients queued at its gate ({@code locks/}, type
 *                {@code lock})
 * @param foreign children that are no lock node Coord understands (neither Coord's nor Curator's
 *                lock, read-write lock or semaphore nodes: a typo'd child, another tool's node,
 *                Coord's read-write or semaphore layout before it took Curator's), by name; for a
 *                semaphore those in {@code leases/} and {@code locks/} as {@code leases/<name>}
 *                and {@code locks/<name>}. While any is there, every acquire on this path fails
 *                with {@link io.coord.ForeignNodesException} naming them
 */
public record LockInfo(CoordPath path, List<Entry> holders, List<Entry> waiters, List<String> foreign) {
    public LockInfo {
        Objects.requireNonNull(path, "path");
        holders = List.copyOf(holders);
        waiters = List.copyOf(waiters);
        foreign = List.copyOf(foreign);
    }

    /**
     * One node in the queue.
     *
     * @param node      the node's path
     * @param type      {@code lock}, {@code read}, {@code write} or {@code lease} (Curator's nodes of
     *                  the same kinds included)
     * @param sessionId the session that owns the node
     * @param token     the node's czxid: the fencing token the holder uses
     * @param queuedAt  when the node was created (the server's clock)
     * @param heldSince when it was granted, as the holder recorded it (its clock); null while not
     *                  recorded: holders record it once they have held for a second (so short
     *                  holds cost no extra write), and waiters never
     * @param host      the holder's host name, or null if the node's data is not Coord's
     * @param pid       the holder's process id, or null
     * @param owner     the holder's owner name (thread name unless the options gave one), or null
     */
    public record Entry(CoordPath node, String type, long sessionId, long token, Instant queuedAt, Instant heldSince,
                        String host, Long pid, String owner) {
        public Entry {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(queuedAt, "queuedAt");
        }

        /** The session id as ZooKeeper tools print it. */
        public String sessionIdHex() {
            return "0x" + Long.toHexString(sessionId);
        }
    }

    /** The first holder, if any. */
    public Optional<Entry> holder() {
        return holders.isEmpty() ? Optional.empty() : Optional.of(holders.get(0));
    }

    /** Holders plus waiters. */
    public int queueLength() {
        return holders.size() + waiters.size();
    }
}
