package io.coord.membership;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The pure flap rule: a member id that leaves and joins again within the window has flapped.
 * Counts and the last flap are kept per id for the life of the observer. Times are passed in
 * (monotonic nanos for the window, an {@link Instant} for reporting), so the rule has no clock.
 * Not thread-safe: the group's worker thread owns it.
 */
final class FlapRule {
    private final long windowNanos;
    private final Map<String, Long> leftAt = new HashMap<>();
    private final Map<String, Group.Flap> flaps = new HashMap<>();

    FlapRule(Duration window) {
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("flap window must be > 0, got " + window);
        }
        this.windowNanos = window.toNanos();
    }

    /** {@code id} left at {@code nanos}. */
    void left(String id, long nanos) {
        leftAt.put(Objects.requireNonNull(id, "id"), nanos);
        forgetOlderThan(nanos);
    }

    /** {@code id} joined at {@code nanos}; the flap it makes, if it had left within the window. */
    Optional<Group.Flap> joined(String id, long nanos, Instant at) {
        Long left = leftAt.remove(id);
        if (left == null || nanos - left > windowNanos) {
            return Optional.empty();
        }
        Group.Flap before = flaps.get(id);
        Group.Flap flap = new Group.Flap(id, before == null ? 1 : before.count() + 1, at, Duration.ofNanos(Math.max(0, nanos - left)));
        flaps.put(id, flap);
        return Optional.of(flap);
    }

    Map<String, Group.Flap> flaps() {
        return Map.copyOf(flaps);
    }

    /** Departures older than the window can no longer make a flap: forget them (bounded memory). */
    private void forgetOlderThan(long now) {
        if (leftAt.size() < 64) {
            return;
        }
        for (Iterator<Long> it = leftAt.values().iterator(); it.hasNext(); ) {
            if (now - it.next() > windowNanos) {
                it.remove();
            }
        }
    }
}
