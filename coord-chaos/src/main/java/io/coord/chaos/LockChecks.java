package io.coord.chaos;

import io.coord.test.History;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The lock scenario's fairness and lost-holder checks. Pure: no ZooKeeper, so every rule has a
 * unit test.
 *
 * <ul>
 *   <li><b>FIFO among connected waiters</b>: a token is the czxid of the waiter's lock node, so
 *       tokens give the queue order. A grant is an overtake if an earlier grant had a larger
 *       token (a waiter that queued later got the lock first), unless a fault aimed at the
 *       overtaken worker ({@code pause}, {@code cut}, {@code expire}, ...) overlapped its wait: it
 *       did not stay connected.
 *   <li><b>A lost holder stops within negotiated timeout + 1 s</b>: from the moment its session
 *       was surely gone (a holder expired by the harness: when the expiry completed; a holder
 *       paused past its session: when it was resumed) until it said LOST or released.
 * </ul>
 */
final class LockChecks {
    private LockChecks() {
    }

    /** A grant as the controller heard of it: who, which token, when it asked, when it said HELD. */
    record Grant(String worker, long token, long askedNanos, long grantedNanos) {
    }

    /** Grants checked (not excused by a fault on their worker) and the overtakes among them. */
    record Fifo(long checked, List<String> overtakes) {
        Fifo {
            overtakes = List.copyOf(overtakes);
        }
    }

    /** Lost holders timed, the slowest stop, and the ones over the bound. */
    record Stops(long timed, long slowestNanos, List<String> late) {
        Stops {
            late = List.copyOf(late);
        }
    }

    /** Whether {@code window} was aimed at {@code worker} (its name ends in or contains the worker's name as a word). */
    static boolean aimedAt(History.Window window, String worker) {
        String[] parts = window.name().split(" ");
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].equals(worker)) {
                return true;
            }
        }
        return false;
    }

    static Fifo fifo(List<Grant> grants, List<History.Window> windows) {
        long checked = 0;
        List<String> overtakes = new ArrayList<>();
        Grant highest = null;
        for (Grant g : grants) {
            boolean excused = windows.stream().anyMatch(w -> aimedAt(w, g.worker())
                    && w.startNanos() <= g.grantedNanos() && w.endNanos() >= g.askedNanos());
            if (!excused) {
                checked++;
                if (highest != null && highest.token() > g.token()) {
                    overtakes.add(g.worker() + " (token " + g.token() + ") was granted after " + highest.worker()
                            + " (token " + highest.token() + ", queued later)");
                }
            }
            if (highest == null || g.token() > highest.token()) {
                highest = g;
            }
        }
        return new Fifo(checked, overtakes);
    }

    /**
     * @param holdEnded      token to when its holder said DONE (released)
     * @param lostAt         token to when its holder said LOST
     * @param resumedHolders {token, nanos} of holders resumed after a pause past their session
     * @param bound          negotiated session timeout + 1 s (scaled)
     */
    static Stops stops(List<History.Window> windows, List<Grant> grants, Map<Long, Long> holdEnded, Map<Long, Long> lostAt,
                       List<long[]> resumedHolders, long bound) {
        List<long[]> refs = new ArrayList<>(resumedHolders);
        for (History.Window w : windows) {
            if (!w.name().startsWith("expire ")) {
                continue;
            }
            for (Grant g : grants) {
                Long ended = holdEnded.get(g.token());
                if (aimedAt(w, g.worker()) && g.grantedNanos() <= w.startNanos() && (ended == null || ended >= w.startNanos())) {
                    refs.add(new long[] {g.token(), w.endNanos()});
                }
            }
        }
        long slowest = 0;
        List<String> late = new ArrayList<>();
        for (long[] r : refs) {
            Long lost = lostAt.get(r[0]);
            Long ended = holdEnded.get(r[0]);
            Long stop = ended;
            if (lost != null) {
                stop = ended == null ? lost : Long.valueOf(Math.min(lost, ended));
            }
            if (stop == null) {
                late.add("the holder of token " + r[0] + " never said LOST nor released");
                continue;
            }
            long took = Math.max(0, stop - r[1]);
            slowest = Math.max(slowest, took);
            if (took > bound) {
                late.add("the holder of token " + r[0] + " stopped " + took / 1_000_000 + " ms after losing its session (bound "
                        + bound / 1_000_000 + " ms)");
            }
        }
        return new Stops(refs.size(), slowest, late);
    }
}
