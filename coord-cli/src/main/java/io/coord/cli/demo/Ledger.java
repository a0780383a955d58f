package io.coord.cli.demo;

import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.fence.FenceGuard;
import io.coord.fence.InMemoryFenceGuard;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared ledger the workers post to: one balance, written by read-modify-write under the
 * ledger lock, behind an {@link InMemoryFenceGuard} that refuses a write whose lock token is
 * older than one it has already accepted.
 *
 * <p>It also keeps its own record of the highest token accepted, independent of the guard, so
 * that it can tell a stale write it accepted: with fencing off ({@code fenced == false}, the
 * control run that shows the check can fail) such a write goes through, and the run must report
 * it as a broken invariant.
 */
final class Ledger {
    /** One write the fence refused. */
    record Rejection(String worker, long task, long token, long highest) {
    }

    /** One accepted write whose token was older than one accepted before it: must never happen when fenced. */
    record StaleAccept(String worker, long task, long token, long highest) {
    }

    private final boolean fenced;
    private final FenceGuard guard = new InMemoryFenceGuard();
    private long balance;
    private long highest;
    private long writes;
    private final Map<Long, Integer> applications = new HashMap<>();
    private final Map<Long, String> appliedBy = new HashMap<>();
    private final List<Rejection> rejections = new ArrayList<>();
    private final List<StaleAccept> staleAccepted = new ArrayList<>();

    Ledger(boolean fenced) {
        this.fenced = fenced;
    }

    boolean fenced() {
        return fenced;
    }

    synchronized long balance() {
        return balance;
    }

    /**
     * Sets the balance to {@code newBalance} for {@code task} if the fence admits {@code token};
     * returns whether it was accepted.
     */
    synchronized boolean write(String worker, long task, long newBalance, long token, String node) {
        long before = highest;
        if (fenced && !guard.admit(DemoLayout.LEDGER, new FencingToken(token, CoordPath.of(node)))) {
            rejections.add(new Rejection(worker, task, token, guard.highest(DemoLayout.LEDGER)));
            return false;
        }
        if (token < before) {
            staleAccepted.add(new StaleAccept(worker, task, token, before));
        }
        highest = Math.max(highest, token);
        balance = newBalance;
        writes++;
        applications.merge(task, 1, Integer::sum);
        appliedBy.put(task, worker);
        return true;
    }

    /** The highest token of an accepted write (0 before the first). */
    synchronized long highestToken() {
        return highest;
    }

    synchronized long writes() {
        return writes;
    }

    synchronized Map<Long, Integer> applications() {
        return Map.copyOf(applications);
    }

    synchronized String appliedBy(long task) {
        return appliedBy.get(task);
    }

    synchronized List<Rejection> rejections() {
        return List.copyOf(rejections);
    }

    synchronized List<StaleAccept> staleAccepted() {
        return List.copyOf(staleAccepted);
    }
}
