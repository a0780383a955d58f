package io.coord.test;

import java.util.HashSet;
import java.util.Set;

/**
 * A tiny model of the thing a lock protects (a file, a row), kept in the controlling test. Holders
 * call {@link #enter}/{@link #exit} around their critical section and {@link #write} with their
 * fencing token; the model counts what {@link Violations} reports.
 *
 * <p>In {@linkplain #fenced() fenced} mode it rejects a write whose token is lower than the
 * highest it has accepted, as a real fenced store does; in {@linkplain #unfenced() unfenced} mode
 * it accepts everything, which is what the control run uses to show that the faults bite.
 * Thread-safe.
 */
public final class GuardedResource {
    private final boolean fenced;
    private final Set<String> inside = new HashSet<>();
    private long highestToken = Long.MIN_VALUE;
    private long writes;
    private long staleWrites;
    private long overlaps;
    private long tokenRegressions;

    private GuardedResource(boolean fenced) {
        this.fenced = fenced;
    }

    public static GuardedResource fenced() {
        return new GuardedResource(true);
    }

    public static GuardedResource unfenced() {
        return new GuardedResource(false);
    }

    /** {@code holder} enters its critical section; counts an overlap if someone else is inside. */
    public synchronized void enter(String holder) {
        if (!inside.isEmpty() && !inside.contains(holder)) {
            overlaps++;
        }
        inside.add(holder);
    }

    public synchronized void exit(String holder) {
        inside.remove(holder);
    }

    /**
     * A write by the holder of {@code token}. Returns whether it was accepted. An accepted write
     * with a token below the highest accepted one is a stale write and a token regression.
     */
    public synchronized boolean write(long token) {
        boolean stale = token < highestToken;
        if (stale && fenced) {
            return false;
        }
        if (stale) {
            staleWrites++;
            tokenRegressions++;
        }
        highestToken = Math.max(highestToken, token);
        writes++;
        return true;
    }

    public synchronized long acceptedWrites() {
        return writes;
    }

    public synchronized Violations violations() {
        return new Violations(staleWrites, overlaps, 0, tokenRegressions);
    }
}
