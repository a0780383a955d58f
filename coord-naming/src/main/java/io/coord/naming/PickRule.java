package io.coord.naming;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;

/**
 * Which instance a {@link Strategy} picks, without I/O: the decision of {@link Resolver#resolve()},
 * unit-tested without a server. One object per resolver (it keeps the round-robin position and
 * the sticky choice); thread-safe.
 */
final class PickRule {
    /**
     * The instances to choose from, prepared once per cache change (or per call while some
     * instance is reported failing): all of them, the local zone's, and cumulative weights.
     */
    record Candidates(Endpoint[] all, long[] cumulative, Endpoint[] local) {
        static final Candidates NONE = new Candidates(new Endpoint[0], new long[0], new Endpoint[0]);

        static Candidates of(List<Endpoint> available, String localZone) {
            Endpoint[] all = available.toArray(new Endpoint[0]);
            long[] cumulative = new long[all.length];
            long sum = 0;
            List<Endpoint> local = new ArrayList<>();
            for (int i = 0; i < all.length; i++) {
                sum += all[i].weight();
                cumulative[i] = sum;
                if (localZone != null && localZone.equals(all[i].zone())) {
                    local.add(all[i]);
                }
            }
            return new Candidates(all, cumulative, local.toArray(new Endpoint[0]));
        }

        boolean isEmpty() {
            return all.length == 0;
        }
    }

    private final Strategy strategy;
    /** {@code random.applyAsInt(bound)} is uniform in {@code [0, bound)}; injected so tests can steer it. */
    private final IntUnaryOperator random;
    private final AtomicInteger turn = new AtomicInteger();
    private final AtomicReference<String> sticky = new AtomicReference<>();

    PickRule(Strategy strategy, IntUnaryOperator random) {
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.random = random;
    }

    /** The pick, or null if there is nothing to pick from. */
    Endpoint pick(Candidates c) {
        Endpoint[] all = c.all();
        if (all.length == 0) {
            return null;
        }
        return switch (strategy) {
            case ROUND_ROBIN -> inTurn(all);
            case RANDOM -> all[random.applyAsInt(all.length)];
            case STICKY -> sticky(all);
            case WEIGHTED -> weighted(all, c.cumulative());
            case ZONE_PREFERRING -> c.local().length > 0 ? inTurn(c.local()) : inTurn(all);
        };
    }

    private Endpoint inTurn(Endpoint[] from) {
        return from[Math.floorMod(turn.getAndIncrement(), from.length)];
    }

    private Endpoint sticky(Endpoint[] all) {
        String id = sticky.get();
        if (id != null) {
            for (Endpoint e : all) {
                if (e.id().equals(id)) {
                    return e;
                }
            }
        }
        Endpoint chosen = inTurn(all);
        sticky.set(chosen.id());
        return chosen;
    }

    /** The instance whose cumulative-weight interval holds a uniform draw from {@code [0, total)}. */
    private Endpoint weighted(Endpoint[] all, long[] cumulative) {
        long total = cumulative[cumulative.length - 1];
        // Weights are at most 10 000 each, so an int draw covers 200 000 instances.
        long draw = random.applyAsInt((int) Math.min(total, Integer.MAX_VALUE));
        int lo = 0;
        int hi = cumulative.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cumulative[mid] > draw) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return all[lo];
    }
}
