package io.coord.cli.demo;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The controller's say over who may claim tasks: how the script makes each fault's moment certain
 * to come, at any number of workers and any speed. A worker asks before every claim
 * ({@code Q CLAIM max=N}, see {@code DemoWorker}) and claims no more than the answer allows. Open,
 * the gate allows everyone their whole batch. For a fault, the script lets only the fault's
 * targets claim (one task each, told where to stop: {@link Fault}), waits until no other worker is
 * between an answer and its claim ({@link #quiet}), then releases a wave of fresh tasks: the
 * targets are then sure to get one, however fast the others drained the queue before. Every
 * other worker is told "0" and asks again shortly. A target stays one until it reports being at
 * its fault's point ({@link #reached}), so a batch it had to drop does not lose the fault.
 */
final class ClaimGate {
    /** Where a target stops, with the one task it was allowed to claim. */
    enum Fault {
        /** Holding the ledger lock, the balance read, before the write: to be paused there. */
        STALL,
        /** Holding the claim, before taking the lock: to be killed there. */
        HOLD
    }

    private final Map<String, Fault> targets = new HashMap<>();
    /** Workers that were allowed to claim and have not yet said what they claimed. */
    private final Set<String> claiming = new HashSet<>();
    private boolean closed;

    /** The answer to {@code worker}'s {@code CLAIM max=}{@code max}: how many it may claim, and where a target stops. */
    synchronized String answer(String worker, int max) {
        Fault fault = targets.get(worker);
        if (fault != null) {
            claiming.add(worker);
            return "1 " + fault.name().toLowerCase(Locale.ROOT);
        }
        if (closed) {
            return "0";
        }
        claiming.add(worker);
        return Integer.toString(max);
    }

    /** {@code worker} has claimed what it was allowed (possibly nothing). */
    synchronized void claimed(String worker) {
        claiming.remove(worker);
    }

    /** {@code worker} is at its fault's point: it is no target any more. */
    synchronized void reached(String worker) {
        targets.remove(worker);
    }

    /** From now on only these workers may claim, one task each, and each stops at its fault's point. */
    synchronized void only(Map<String, Fault> faults) {
        closed = true;
        targets.clear();
        targets.putAll(faults);
    }

    /** Everyone may claim again. */
    synchronized void open() {
        closed = false;
        targets.clear();
    }

    /** Whether none of {@code workers}, targets aside, is between an allowance and its claim. */
    synchronized boolean quiet(Collection<String> workers) {
        return workers.stream().noneMatch(w -> claiming.contains(w) && !targets.containsKey(w));
    }
}
