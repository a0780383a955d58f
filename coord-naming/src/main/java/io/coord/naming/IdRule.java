package io.coord.naming;

import io.coord.CoordException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The arithmetic of both ID generators, without I/O. Everything that makes an ID safe is decided
 * here and unit-tested without a server.
 *
 * <h2>Why the IDs are built on the counter node's czxid</h2>
 * ZooKeeper's zxids are global, persistent and never go back, across leader changes and across
 * deletion and re-creation of a node. Each successful write to a counter node is one transaction
 * with its own zxid, all of them above the node's czxid. So:
 * <ul>
 *   <li><b>sequence</b>: the k-th write to a counter node (its {@code version} becomes k) hands out
 *       {@code czxid + k}. The k writes have k distinct zxids above czxid, so
 *       {@code czxid + k <= zxid of the k-th write}: every ID is at most the zxid of the write that
 *       issued it. A re-created node has a czxid above every earlier zxid, so its IDs are above
 *       every ID an earlier incarnation issued. Within an incarnation the version is consecutive:
 *       the IDs are dense. The write is unconditional (ZooKeeper increments the version
 *       atomically), and the ID comes from the reply to that very write: no read, no conflict.</li>
 *   <li><b>block</b>: the node holds the next free ID. An incarnation starts at its
 *       {@linkplain #blockBase base} {@code czxid * BLOCK_SCALE}, and each compare-and-set moves
 *       the value up by at most {@link #MAX_BLOCK} ({@code < BLOCK_SCALE}). After k writes the
 *       value is below {@code (czxid + k) * BLOCK_SCALE <= (zxid of the k-th write) * BLOCK_SCALE},
 *       so a re-created node starts above every ID ever reserved.</li>
 * </ul>
 * A compare-and-set checks only the data version, which restarts at 0 when a node is re-created:
 * a write prepared on an older incarnation can land on a newer one that happens to be at the same
 * version. Such a stale write always stores a value below the newer incarnation's base (by the
 * bound above), so it can never look valid: {@link #validNext} tells it apart, every reader
 * that finds an invalid counter rolls the node over instead of using it, and the writer itself sees
 * the changed czxid in the reply and discards its block.
 *
 * <p>ZooKeeper's data version is a 32-bit int that wraps silently (and at -1 a conditional write
 * becomes unconditional), so a counter node is rolled over (deleted and created again in one
 * transaction, which gives it a new, higher czxid) well before the wrap.
 */
final class IdRule {
    /** The scale between a block counter node's czxid and its IDs. */
    static final long BLOCK_SCALE = 1L << 16;

    /** Largest block one compare-and-set may reserve: strictly below the scale (see the class comment). */
    static final int MAX_BLOCK = (int) BLOCK_SCALE - 1;

    /**
     * At this version a counter node is rolled over. Far below {@link Integer#MAX_VALUE}, so that
     * the writes racing with the rollover (each client may be one write behind) cannot wrap it.
     */
    static final int ROLLOVER_VERSION = Integer.MAX_VALUE - (1 << 24);

    private IdRule() {
    }

    /**
     * The ID handed out by a write to the sequence counter node that left it at {@code version},
     * or -1 if that write must not hand one out (the version wrapped: roll over and write again).
     */
    static long sequenceId(long czxid, int version) {
        if (czxid <= 0) {
            throw new IllegalArgumentException("czxid must be > 0, got " + czxid);
        }
        if (version < 1) {
            return -1;
        }
        return Math.addExact(czxid, version);
    }

    /** Whether a counter node at {@code version} should be rolled over (at {@code threshold}) before it can wrap. */
    static boolean needsRollover(int version, int threshold) {
        return version < 0 || version >= threshold;
    }

    /** The first block ID of a counter node created at {@code czxid}; fails rather than overflow. */
    static long blockBase(long czxid) {
        if (czxid <= 0) {
            throw new IllegalArgumentException("czxid must be > 0, got " + czxid);
        }
        if (czxid >= Long.MAX_VALUE / BLOCK_SCALE - ((long) Integer.MAX_VALUE + 1)) {
            throw new CoordException("block IDs would overflow 64 bits: the counter node's czxid 0x"
                    + Long.toHexString(czxid) + " times " + BLOCK_SCALE + " does not fit (the ensemble has gone through"
                    + " about 32 000 leader epochs); use a new ID name");
        }
        return czxid * BLOCK_SCALE;
    }

    /**
     * The next free ID a block counter node holds, if it is valid for the incarnation created at
     * {@code czxid} and written {@code version} times: at least its base, and at most
     * {@link #MAX_BLOCK} per write above it. {@code stored} is -1 for a node that holds no value,
     * which means its base if no write has happened yet (version 0). Returns -1 for an invalid counter: written outside
     * Coord, or by a compare-and-set prepared on an older incarnation. An invalid counter is never
     * used; it is rolled over.
     */
    static long validNext(long czxid, int version, long stored) {
        long base = blockBase(czxid);
        if (stored == -1) {
            // Empty is what a create leaves. Emptied later (by hand), the node has handed out
            // blocks from its base already: invalid.
            return version == 0 ? base : -1;
        }
        if (version < 0 || stored < base || stored - base > (long) version * MAX_BLOCK) {
            return -1;
        }
        return stored;
    }

    /** A block of {@code size} IDs: {@code [first, first + size)}. */
    record Block(long first, int size) {
        Block {
            if (size < 1 || size > MAX_BLOCK) {
                throw new IllegalArgumentException("block size must be within 1.." + MAX_BLOCK + ", got " + size);
            }
            if (first < 0 || first > Long.MAX_VALUE - size) {
                throw new IllegalArgumentException("block [" + first + ", +" + size + ") is out of range");
            }
        }

        long end() {
            return first + size;
        }
    }

    /** What a block counter node holds: the next free ID (-1 when empty) and the tag of the write that set it. */
    record Counter(long next, String tag) {
    }

    /** {@code "<next> <tag>"} in ASCII, readable with zkCli. */
    static byte[] encodeCounter(long next, String tag) {
        return (next + " " + tag).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Parses counter data; an empty node (just created) holds -1 ("its base"). Data that is not
     * {@code "<next> <tag>"} decodes as {@code Long.MIN_VALUE}, which {@link #validNext} refuses.
     */
    static Counter decodeCounter(byte[] data) {
        if (data == null || data.length == 0) {
            return new Counter(-1, "");
        }
        String text = new String(data, StandardCharsets.US_ASCII);
        int space = text.indexOf(' ');
        String number = space < 0 ? text : text.substring(0, space);
        try {
            long next = Long.parseLong(number);
            return new Counter(next < 0 ? Long.MIN_VALUE : next, space < 0 ? "" : text.substring(space + 1));
        } catch (NumberFormatException e) {
            return new Counter(Long.MIN_VALUE, "");
        }
    }

    /**
     * A write tag unique to one attempt, so that after a lost reply the writer can tell its own
     * write from another's: a random 64-bit prefix per generator and a counter.
     */
    static String newTagPrefix() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    }

    /**
     * The backoff before attempt {@code attempt} (0-based) after a conflict: exponential from
     * {@code baseNanos}, capped at {@code maxNanos}, with full jitter so racing clients spread out.
     */
    static long backoffNanos(int attempt, long baseNanos, long maxNanos, double random) {
        if (random < 0 || random >= 1) {
            throw new IllegalArgumentException("random must be within [0, 1), got " + random);
        }
        long ceiling = baseNanos << Math.min(attempt, 20);
        if (ceiling <= 0 || ceiling > maxNanos) {
            ceiling = maxNanos;
        }
        return (long) (ceiling * random) + 1;
    }
}
