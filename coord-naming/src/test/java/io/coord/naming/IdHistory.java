package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Completed ID calls as the test (the controller) saw them: which client, the ID, and the
 * invocation and completion instants (System.nanoTime of this one JVM, so comparable).
 */
final class IdHistory {
    record Op(int client, long id, long invoked, long completed) {
    }

    private final List<Op> ops = new ArrayList<>();
    private long elapsedNanos;

    synchronized void add(Op op) {
        ops.add(op);
    }

    synchronized void addAll(List<Op> more) {
        ops.addAll(more);
    }

    void elapsed(long nanos) {
        elapsedNanos = nanos;
    }

    long elapsedMillis() {
        return elapsedNanos / 1_000_000;
    }

    synchronized int size() {
        return ops.size();
    }

    synchronized long countInvokedAfter(long nanos) {
        return ops.stream().filter(op -> op.invoked() - nanos > 0).count();
    }

    synchronized List<Long> ids() {
        return ops.stream().map(Op::id).toList();
    }

    /** No ID was returned twice. */
    synchronized void assertUnique() {
        Map<Long, Op> seen = new HashMap<>();
        for (Op op : ops) {
            Op before = seen.putIfAbsent(op.id(), op);
            if (before != null) {
                fail("ID " + op.id() + " returned twice: to client " + before.client() + " and client " + op.client());
            }
        }
        assertEquals(ops.size(), seen.size());
    }

    /**
     * Linearizable order: if call A completed before call B was invoked (in any clients), then
     * id(A) < id(B). One sweep over the calls in invocation order, keeping the highest ID among
     * the calls completed before the current one began.
     */
    synchronized void assertRealTimeOrder() {
        Op[] byInvoke = ops.toArray(new Op[0]);
        Op[] byComplete = byInvoke.clone();
        Arrays.sort(byInvoke, Comparator.comparingLong(Op::invoked));
        Arrays.sort(byComplete, Comparator.comparingLong(Op::completed));
        int done = 0;
        Op highest = null;
        for (Op b : byInvoke) {
            while (done < byComplete.length && byComplete[done].completed() < b.invoked()) {
                if (highest == null || byComplete[done].id() > highest.id()) {
                    highest = byComplete[done];
                }
                done++;
            }
            if (highest != null && b.id() <= highest.id()) {
                fail("real-time order violated: client " + highest.client() + " got " + highest.id()
                        + " and completed before client " + b.client() + " asked, which then got " + b.id());
            }
        }
    }

    /** Each client's IDs increase in the order that client got them. */
    synchronized void assertIncreasingPerClient() {
        Map<Integer, Op> last = new HashMap<>();
        ops.stream().sorted(Comparator.comparingLong(Op::invoked)).forEach(op -> {
            Op before = last.put(op.client(), op);
            if (before != null && op.id() <= before.id()) {
                fail("client " + op.client() + " got " + op.id() + " after " + before.id());
            }
        });
    }
}
